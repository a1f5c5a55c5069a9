"""Runtime prediction in the cycle (issue 17): a pass over the cycle context that learns from
jobs that ended and predicts jobs seen queued for the first time, and the span the planner
gives each job.

With PREDICTIONPOLICY NONE everywhere the pass does nothing and every span is the request.
Otherwise each job gets one Prediction (state.predictions, persisted) when first seen queued;
a job that ends teaches its user's history (state.history, persisted) its runtime: the time
from when it was first seen running to the cycle that finds it gone (exact in the simulator,
within a poll interval in the daemon). A running job's span is its prediction until it runs
out, then the correction (predict/correctors.py), so its hold's end moves once per expiry.
Cost: O(jobs that ended, started or arrived) per cycle.
"""

from __future__ import annotations

from typing import Iterable

from ..model import Job
from ..predict import CorrectionPolicy, Prediction, PredictionPolicy, corrected_span, learn, predict


class Predicting:
    """The prediction settings of one configuration, read once."""

    def __init__(self, cfg):
        self.policy = PredictionPolicy(cfg.get("PREDICTIONPOLICY") or "NONE")
        self.by_qos = {name: PredictionPolicy(obj.get("PREDICTION"))
                       for name, obj in cfg.objects("QOSCFG").items() if obj.get("PREDICTION")}
        self.depth = int(cfg.get("PREDICTIONHISTORY") or 0)
        self.correction = CorrectionPolicy(cfg.get("PREDICTIONCORRECTION") or "REQUEST")
        self.on = self.policy is not PredictionPolicy.NONE or any(
            p is not PredictionPolicy.NONE for p in self.by_qos.values())

    def policy_of(self, job: Job) -> PredictionPolicy:
        return self.by_qos.get(job.qos, self.by_qos.get("DEFAULT", self.policy)) if self.by_qos \
            else self.policy


def observe(c, now: int, gone: Iterable[str], active: Iterable[Job], queued: Iterable[Job]) -> None:
    """Note when `active` jobs started, predict `queued` jobs seen for the first time, then
    learn from `gone` (jobs no longer running): a job submitted as another ends is predicted
    without it, as the published simulator orders the two. O(len of the three)."""
    pr: Predicting = c.settings.predicting
    st = c.state
    preds, history = st.predictions, st.history
    for job in active:
        p = preds.get(job.id)
        if p is None:
            p = predict(pr.policy_of(job), history, job.user, job.wallclock, pr.depth)
        start = job.start_time if job.start_time is not None else p.started
        if p.started is None or start != p.started:
            note_start(preds, job, p, start if start is not None else now)
    for job in queued:
        if job.id not in preds:
            p = predict(pr.policy_of(job), history, job.user, job.wallclock, pr.depth)
            preds[job.id] = Prediction(p.estimate, p.source, job.user, job.wallclock)
    ended = []
    for jid in gone:
        p = preds.pop(jid, None)
        if p is not None and p.started is not None:
            ended.append((p.started, len(jid), jid, p))
    ended.sort()                    # start order, then job id: the same history every time
    for _s, _n, _j, p in ended:
        learn(history, p.user, now - p.started, p.request, pr.depth)


def note_start(preds: dict, job: Job, p: Prediction, at: int) -> None:
    """Remember when the job started: the cycle that starts it calls this too, since a job
    may end before any snapshot shows it running (its end the next event). O(1)."""
    preds[job.id] = Prediction(p.estimate, p.source, p.user or job.user, p.request or job.wallclock, at)


def planned_span(cfg, predictions: dict):
    """(job, start, now) -> the seconds the planner gives a job running since `start`: its
    prediction while it has not run out, then the correction; the request at most, and the
    request for a job without a prediction. For the cycle and for the commands' view of the
    stored state alike. O(1) per job."""
    correction = CorrectionPolicy(cfg.get("PREDICTIONCORRECTION") or "REQUEST")

    def span(job: Job, start: int, now: int) -> int:
        p = predictions.get(job.id)
        if p is None:
            return job.wallclock
        return corrected_span(correction, p.estimate, job.wallclock, now - start)
    return span
