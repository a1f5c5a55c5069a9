"""maui-py's runtime-prediction parameters (issue 17): rows of the table.

Prediction plans with what a job is expected to run while the resource manager still kills
it at its request; maui_py/predict holds the predictors and correctors, and
maui_py/policy/prediction.py the cycle's pass that makes and corrects predictions.
"""

from __future__ import annotations

from .choices import CorrectionPolicy, PredictionPolicy
from .rows import OWN, group
from .values import Choice, Integer


ROWS: list = group(
    "Runtime prediction",
    OWN("PREDICTIONPOLICY", Choice.of(PredictionPolicy), PredictionPolicy.NONE,
        "what plans a job's end (reservations, backfill windows, showstart): NONE: its wallclock request, as Maui; USERAVERAGE: the mean of its user's "
        "last PREDICTIONHISTORY completed runtimes, capped by the request (Tsafrir, Etsion and Feitelson "
        "2007). The job is still killed at its request; QOSCFG[x] PREDICTION= overrides it per QOS"),
    OWN("PREDICTIONHISTORY", Integer(1, 100), 2,
        "how many of a user's last completed runtimes USERAVERAGE averages (a user with fewer on record is planned with the request)"),
    OWN("PREDICTIONCORRECTION", Choice.of(CorrectionPolicy), CorrectionPolicy.REQUEST,
        "the end a running job that outlives its prediction is planned to have: REQUEST: its request; INCREMENT: the next of 1, 5, 15, 30 min, 1, 2, "
        "5, 10, 20, 50, 100 h past the time it has run; DOUBLE: the prediction doubled until past it; "
        "always capped by the request"),
)
