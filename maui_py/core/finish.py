"""The end of a cycle's passes: bypass counts, a report line per waiting job, and one Reserve
decision per priority reservation held (the daemon mirrors and journals them)."""

from __future__ import annotations

from itertools import islice

from ..model import Job, Reserve
from ..model.report import ReportStatus
from ..model.times import duration
from ..planning import memo
from ..policy import deferral
from ..policy.limits import HARD
from . import parked
from .result import nodes_text


def reserve_decisions(items, known: list[Reserve]) -> list[Reserve]:
    """A Reserve per (job id, kept reservation) of `items`, the one in `known` (the last
    cycle's, mostly in the same order) when it is unchanged. `known` is walked alongside,
    skipping one that is gone (a started head); a map of it is built only when the order
    differs more. O(items + known)."""
    out = []
    i, nk, where = 0, len(known), None
    for jid, kr in items:
        r = known[i] if i < nk else None
        if r is None or r.job_id != jid:
            r = known[i + 1] if i + 1 < nk else None
            if r is not None and r.job_id == jid:
                i += 1
            else:
                if where is None:
                    where = {x.job_id: k for k, x in enumerate(known)}
                k = where.get(jid)
                r = known[k] if k is not None else None
                i = k if k is not None else i - 1
        i += 1
        if (r is None or r.start != kr.start or r.end != kr.end
                or r.allocation != kr.allocation):
            r = Reserve(jid, kr.start, kr.end, kr.allocation)
        out.append(r)
    return out



def _bypassed(c, order, bf: list[int]) -> None:
    """Add to the bypass count of each waiting job the backfill starts at the sorted
    order positions `bf` jumped (those after it): one walk of the order up to the last
    such start, a segment per start, no search per job. O(bf[-1])."""
    bypass, started, settled = c.state.bypass, c.started, c.settled
    lo = 0
    for i, hi in enumerate(bf):
        jumped = len(bf) - i
        for job, _cr, _p in order[lo:hi]:
            jid = job.id
            if jid not in started and jid not in settled:
                bypass[jid] = bypass.get(jid, 0) + jumped
        lo = hi + 1

def finish(c, order, running: list[Job], reuse: list[Reserve] | None = None,
           known: list[Reserve] | None = None) -> None:
    """Bypass counts, reports, and one Reserve per reservation held. `reuse`: the
    Reserve decisions of the last cycle, for reservations it left unchanged and
    listed first (changes.py); `known`: the last cycle's, any of which is used again
    for a reservation that has not changed since."""
    st, now = c.state, c.now
    if c.bf_positions:
        _bypassed(c, order, sorted(c.bf_positions))
        if c.parked is not None:
            parked.bump(c, order, c.bf_positions)
    for job, _cr, _p in order if c.explain else ():
        jid = job.id
        if jid in c.started or jid in c.settled:
            continue
        prio = c.priorities[jid].clipped if jid in c.priorities else None
        kr = st.reservations.get(jid)
        if kr is not None:
            nodes = tuple(n for n, _ in kr.allocation)
            retry = (f" (retry hold until {kr.retry_until})"
                     if kr.retry_until and kr.retry_until > now else "")
            where = nodes_text(nodes) if nodes else f"any {job.procs} procs"
            c.report(jid, ReportStatus.RESERVED,
                        f"reserved at {kr.start} (in {duration(kr.start - now)})"
                        f" on {where}{retry}", priority=prio,
                         start=kr.start, nodes=nodes)
        else:
            v = c.limits.active_violation(job, c.usage, HARD)
            if v:
                deferral.reset_accrual(c, jid, "limit")
                c.report(jid, ReportStatus.BLOCKED, f"blocked: {v}", priority=prio)
                continue
            why = []
            if jid in c.blocked_soft:
                why.append(f"soft limit {c.blocked_soft[jid]}")
            if jid in c.no_reservation:
                why.append(f"no reservation ({c.no_reservation[jid]})")
            if c.settings.bf_pass.run is None or "NOBF" in c.flags_of(job):
                why.append(f"waiting in priority order ({c.stop_reason or 'no backfill'})")
            else:
                why.append(f"no backfill window of {duration(c.span(job))} x {job.procs} procs")
            status = ReportStatus.BLOCKED if jid in c.blocked_soft else ReportStatus.WAITING
            c.report(jid, status, "; ".join(why), priority=prio)
    st.caches.reserved_stamp = memo.epoch(c.table)
    if c.list_reserves:
        made = c.reserve_decisions = list(reuse) if reuse else []
        made.extend(reserve_decisions(islice(st.reservations.items(), len(made), None),
                              known or ()))
        c.decisions.extend(made)
    if c.explain:
        for j in running:
            c.report(j.id, ReportStatus.RUNNING, "running on " + nodes_text(j.nodes),
                        start=j.start_time, nodes=j.nodes)
