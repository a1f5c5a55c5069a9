"""The values of maui.cfg's policy parameters, as Python enums.

The parameter table (params.py) lists each policy's keywords through its enum (`Choice.of`),
so the loader yields enum members; the code that acts on a policy keys its dispatch table by
the same enum (named in each enum's docstring), and tests/unit/test_cfg_choices.py checks that
every member has an entry. The enums are str-valued: a member compares, formats and
serialises as its maui.cfg keyword, and its name is the keyword (`BackfillPolicy.FIRSTFIT`).
Spellings Maui also reads (`BACKFILLPOLICY ON`, `NODEALLOCATIONPOLICY CONTIGUOUS`) are aliases
in params.py, mapped with a warning by the loader: the one place an unknown spelling is handled.
"""

from __future__ import annotations

from enum import StrEnum


def _keywords(name: str, doc: str, *words: str) -> type[StrEnum]:
    """A str enum whose members are named and valued by the keywords (`word%` is named
    `WORD_PERCENT`)."""
    enum = StrEnum(name, [(word.replace("%", "_PERCENT"), word) for word in words], module=__name__)
    enum.__doc__ = doc
    return enum


BackfillPolicy = _keywords("BackfillPolicy", "BACKFILLPOLICY (maui_py.policy.backfill.PASSES).",
                           "FIRSTFIT", "BESTFIT", "GREEDY", "PREEMPT", "NONE")
BackfillMetric = _keywords("BackfillMetric", "BACKFILLMETRIC (maui_py.policy.backfill.METRICS).",
                           "PROCS", "PROCSECONDS", "SECONDS")
ReservationPolicy = _keywords("ReservationPolicy", "RESERVATIONPOLICY (maui_py.policy.kept.REMAKES, "
                              "maui_py.policy.priority_pass.RESERVES).", "CURRENTHIGHEST", "HIGHEST", "NEVER")
NodeAllocation = _keywords("NodeAllocation", "NODEALLOCATIONPOLICY (maui_py.planning.nodechoice.KEYS).",
                           "FIRSTAVAILABLE", "LASTAVAILABLE", "MINRESOURCE", "CPULOAD", "PRIORITY", "FASTEST")
MauiCompat = _keywords("MauiCompat", "MAUICOMPAT (maui_py.core.compat.COMPAT_RULES): NONE, maui-py's own "
                       "node and backfill rules; 3.3, Maui 3.3's (maui_py.planning.maui33).", "NONE", "3.3")
AccrualPolicy = _keywords("AccrualPolicy", "JOBPRIOACCRUALPOLICY (maui_py.policy.deferral.ACCRUAL_RESETS).",
                          "ALWAYS", "QUEUEPOLICY", "FULLPOLICY")
QueuePolicyName = _keywords("QueuePolicyName", "QUEUEPOLICY (maui_py.priority.queues.POLICIES).",
                            "MAUI", "ARMADA", "FBSNG")
QueueCredential = _keywords("QueueCredential", "QUEUECREDENTIAL (maui_py.priority.policy.CRED_ATTR).",
                            "CLASS", "ACCOUNT", "USER", "QOS")
BackfillOrder = _keywords("BackfillOrder", "BFPRIORITYPOLICY (maui_py.policy.backfill.ORDERS).",
                          "RANDOM", "DURATION", "HWDURATION", "NONE")
PredictionPolicy = _keywords("PredictionPolicy", "PREDICTIONPOLICY (maui_py.predict.predictors.PREDICTORS): "
                             "what plans a job's end.", "NONE", "USERAVERAGE")
CorrectionPolicy = _keywords("CorrectionPolicy", "PREDICTIONCORRECTION (maui_py.predict.correctors.CORRECTORS): "
                             "what a job that outlives its prediction is planned to run.",
                             "REQUEST", "INCREMENT", "DOUBLE")
FairSharePolicy = _keywords("FairSharePolicy", "FSPOLICY: the usage metric, and with `%` percentage-based fair "
                            "share (maui_py.priority.fairshare.FS_POLICIES).",
                            "DEDICATEDPS", "DEDICATEDPES", "UTILIZEDPS", "NONE",
                            "DEDICATEDPS%", "DEDICATEDPES%", "UTILIZEDPS%")
ForecastPolicy = _keywords("ForecastPolicy", "FORECASTPOLICY (maui_py.daemon.forecasting.DRAW_OF): NONE, no "
                           "forecasts; else how a replay draws the jobs' runtimes (maui_py.forecast.engine.DRAWS).",
                           "NONE", "ALL", "USER", "JOB", "RECENT", "SIMILAR")
