"""maui-py's runtime-prediction parameters (issue 17): rows of the table.

Prediction plans with what a job is expected to run while the resource manager still kills
it at its request; maui_py/predict holds the predictors and correctors, and
maui_py/policy/prediction.py the cycle's pass that makes and corrects predictions.
"""

from __future__ import annotations

from typing import Any

from .params import P, _group
from .values import Enum, Integer

PREDICTION_POLICIES = Enum("NONE", "USERAVERAGE")
CORRECTION_POLICIES = Enum("REQUEST", "INCREMENT", "DOUBLE")


def _p(name: str, vtype, default: Any, doc: str) -> Any:
    return P(name, vtype, default, doc, active=True, origin="maui-py", src="maui-py")


ROWS: list = _group(
    "Runtime prediction",
    _p("PREDICTIONPOLICY", PREDICTION_POLICIES, "NONE", "what plans a job's end (reservations, backfill "
       "windows, showstart): NONE: its wallclock request, as Maui; USERAVERAGE: the mean of its user's "
       "last PREDICTIONHISTORY completed runtimes, capped by the request (Tsafrir, Etsion and Feitelson "
       "2007). The job is still killed at its request; QOSCFG[x] PREDICTION= overrides it per QOS"),
    _p("PREDICTIONHISTORY", Integer(1, 100), 2, "how many of a user's last completed runtimes USERAVERAGE averages "
       "(a user with fewer on record is planned with the request)"),
    _p("PREDICTIONCORRECTION", CORRECTION_POLICIES, "REQUEST", "the end a running job that outlives its "
       "prediction is planned to have: REQUEST: its request; INCREMENT: the next of 1, 5, 15, 30 min, 1, 2, "
       "5, 10, 20, 50, 100 h past the time it has run; DOUBLE: the prediction doubled until past it; "
       "always capped by the request"),
)
