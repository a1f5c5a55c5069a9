"""What a running job that outlives its prediction is planned to run instead.

The corrected span is a function of the prediction, the request and the time the job has
run so far, never of when the scheduler happened to look, so the daemon (which polls) and
the simulator (which corrects at its next event) plan the same ends:
- REQUEST: the request, at once (Tsafrir et al.'s "reqtime" corrector);
- INCREMENT: the first of Tsafrir et al.'s fixed steps (1, 5, 15, 30 min, 1, 2, 5, 10, 20,
  50, 100 h) past the time run so far;
- DOUBLE: the prediction doubled until it is past the time run so far.
Each is capped by the request; past the request the resource manager's limit (and
JOBMAXOVERRUN) takes over (planning/sync.py).
"""

from __future__ import annotations

from typing import Callable

from ..cfg.choices import CorrectionPolicy


STEPS = (60, 300, 900, 1800, 3600, 7200, 18000, 36000, 72000, 180000, 360000)


def corrected_span(policy: CorrectionPolicy, estimate: int, request: int, elapsed: int) -> int:
    """The planned runtime of a job predicted to run `estimate` s that has run `elapsed` s:
    `estimate` while it has not run out, else the correction, capped by `request`. O(1)."""
    estimate, request = max(int(estimate), 1), max(int(request), 1)
    if elapsed < estimate:
        return min(estimate, request)
    if estimate >= request:
        return request
    return min(CORRECTORS[policy](estimate, request, elapsed), request)


def _request(estimate: int, request: int, elapsed: int) -> int:
    return request


def _increment(estimate: int, request: int, elapsed: int) -> int:
    return next((step for step in STEPS if step > elapsed), request)


def _double(estimate: int, request: int, elapsed: int) -> int:
    span = estimate
    while span <= elapsed and span < request:
        span *= 2
    return span


CORRECTORS: dict[CorrectionPolicy, Callable[[int, int, int], int]] = {
    CorrectionPolicy.REQUEST: _request, CorrectionPolicy.INCREMENT: _increment,
    CorrectionPolicy.DOUBLE: _double,
}
"""PREDICTIONCORRECTION -> corrector(estimate, request, elapsed), for a job that has run out
(elapsed >= estimate < request); corrected_span caps what it gives by the request."""


def corrections_needed(policy: CorrectionPolicy, estimate: int, request: int, runtime: int) -> int:
    """How many times a job predicted to run `estimate` s that really runs `runtime` s is
    corrected: each time its planned end passes while it runs. O(corrections)."""
    span, n = max(int(estimate), 1), 0
    while span < runtime and span < request:
        span = corrected_span(policy, estimate, request, span)
        n += 1
    return n
