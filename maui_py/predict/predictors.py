"""Predicted runtimes from a user's history (Tsafrir, Etsion and Feitelson, TPDS 2007).

A prediction is made once, when the scheduler first sees a job queued, from the runtimes of
the user's jobs that completed before; it is capped by the job's request (the limit it is
killed at) and never changes afterwards (a job that outlives it is corrected instead:
correctors.py). The history keeps, per user, the last few (runtime, request) pairs, most
recent last. Both are plain data the store persists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..cfg.choices import PredictionPolicy


@dataclass(frozen=True, slots=True)
class Prediction:
    """A job's planned runtime and where it came from (checkjob shows both)."""

    estimate: int
    source: str
    user: str = ""
    request: int = 0
    started: int | None = None
    """When the job was first seen running (its runtime is learned when it ends)."""


History = dict[str, tuple[tuple[int, int], ...]]
"""user -> ((runtime, request), ...), oldest first, at most PREDICTIONHISTORY pairs."""


def predict(policy: PredictionPolicy, history: History, user: str, request: int,
            depth: int) -> Prediction:
    """The prediction for a job of `user` asking for `request` seconds (PREDICTIONPOLICY).
    O(depth)."""
    return PREDICTORS[policy](history, user, max(int(request), 1), depth)


def _request(history: History, user: str, request: int, depth: int) -> Prediction:
    """NONE: the request, as Maui plans."""
    return Prediction(request, "request")


def _user_average(history: History, user: str, request: int, depth: int) -> Prediction:
    """USERAVERAGE: the floored mean of the user's last `depth` runtimes, capped by the
    request. With fewer on record, the request (as the published predictor falls back to
    the user's estimate)."""
    past = history.get(user, ())
    if len(past) < depth or depth <= 0:
        return Prediction(request, f"request (user {user} has {len(past)} of {depth} runtimes on record)")
    mean = sum(r for r, _q in past[-depth:]) // depth
    if mean >= request:
        return Prediction(request, f"request (below the mean of {user}'s last {depth} runtimes)")
    return Prediction(max(mean, 1), f"mean of {user}'s last {depth} runtimes")


PREDICTORS: dict[PredictionPolicy, Callable[[History, str, int, int], Prediction]] = {
    PredictionPolicy.NONE: _request, PredictionPolicy.USERAVERAGE: _user_average,
}
"""PREDICTIONPOLICY -> predictor(history, user, request, depth)."""


def learn(history: History, user: str, runtime: int, request: int, depth: int) -> None:
    """Record a completed job's runtime. O(depth)."""
    if depth <= 0:
        return
    past = history.get(user, ())
    history[user] = (past + ((max(int(runtime), 0), int(request)),))[-depth:]


def accuracy(history: History, user: str) -> float:
    """The user's mean runtime / request over the history (1.0 with none): HWDURATION's
    weight, Maui's WCAccuracy. O(depth)."""
    past = [r / q for r, q in history.get(user, ()) if q > 0]
    return sum(past) / len(past) if past else 1.0
