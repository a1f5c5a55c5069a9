"""The cycle from what changed re-ranks the queue under QUEUETIME + XFACTOR priorities
(config/easy.cfg) with PriorityEngine.serv_priorities (priority/engine.XF_BATCH) and checks
the order with priority/kinetic.ranked: the same floats as the full breakdown, bit for bit,
and the same verdict as comparing every neighbour's order_key; a replay on the node table
decides exactly as with the batch off (one serv_priority call per job)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.priority import kinetic
from maui_py.model import Job, JobRequest, Resources
from maui_py.priority import engine as engine_mod
from maui_py.priority.engine import JobContext, PriorityEngine, order_key

from .node_kinds import nodes_and_jobs, replay_cycles


@st.composite
def xf_engines(draw):
    """QUEUETIME and XFACTOR weighted (the batch's case), now and then a cap or a third
    subfactor (the batch falls back to serv_priority)."""
    lines = [f"QUEUETIMEWEIGHT {draw(st.sampled_from([1, 3, 7, 50]))}",
             f"XFACTORWEIGHT {draw(st.sampled_from([1, 10, 250]))}",
             f"SERVICEWEIGHT {draw(st.sampled_from([1, 2, 7, -1]))}",
             f"XFMINWCLIMIT {draw(st.sampled_from(['0', '00:02:00', '01:00:00']))}",
             f"CREDWEIGHT {draw(st.sampled_from([0, 1, 3]))}",
             f"PROCWEIGHT {draw(st.sampled_from([0, 1]))}",
             "USERCFG[alice] PRIORITY=100", "ENABLENEGJOBPRIORITY TRUE"]
    extra = draw(st.sampled_from(["", "", "", "XFACTORCAP 5", "SERVICECAP 1000",
                                  "BYPASSWEIGHT 5"]))
    return PriorityEngine(parse_config("\n".join(lines + [extra]) + "\n"), 256, 256_000), extra


JOBS = st.lists(st.tuples(st.sampled_from(["alice", "bob"]), st.integers(1, 8),
                          st.one_of(st.sampled_from([0, 1, 60, 120, 3600]),
                                    st.integers(0, 200_000)),
                          st.integers(0, 10**6), st.integers(-1000, 10**6),
                          st.sampled_from([None, -50, 0, 600]), st.integers(0, 3),
                          st.integers(0, 2)),
                min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(xf_engines(), JOBS, st.integers(0, 2))
def test_serv_priorities_equal_the_breakdown(eng, jobs, asks):
    """Each job's priority from the batch (on and off) is the breakdown's, asked at several
    instants and again with a new Job object of the same id and another wallclock (the
    per-job cache is checked by identity). Queue times before and after `now`."""
    engine, extra = eng
    assert (engine.xf_terms is None) == bool(extra)
    made, queue_time, bypass = [], {}, {}
    for k, (user, procs, wc, submit, wait, qt, by, _i) in enumerate(jobs):
        made.append(Job(f"j{k % 5}" if k >= 5 else f"j{k}", user,
                        JobRequest(tasks=procs, per_task=Resources.of(1, 100)), wc, submit))
        if qt is not None:
            queue_time[made[-1].id] = submit + qt
        bypass[made[-1].id] = by
    for step in range(1 + asks):
        now = max(j.submit_time for j in made) + jobs[0][4] + 97 * step
        for start in range(0, len(made), 5):      # no id twice in one batch
            batch = made[start:start + 5]
            want = [engine.priority(j, now, JobContext(queue_time.get(j.id, j.submit_time),
                                                       bypass.get(j.id, 0))) for j in batch]
            for on in (True, False):
                old = engine_mod.XF_BATCH
                engine_mod.XF_BATCH = on
                try:
                    got = engine.serv_priorities(batch, now, queue_time, bypass)
                finally:
                    engine_mod.XF_BATCH = old
                assert got == want, (on, now)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1.0, 2.5, 2.5000000000000004, 7.0, -3.0]),
                          st.integers(0, 5), st.integers(0, 30)), max_size=10))
def test_ranked_is_order_key_increasing(entries):
    """kinetic.ranked answers as comparing every neighbour's order_key: ties in priority decided
    by submit time and id (ids of several lengths)."""
    jobs = [Job(str(n), "u", JobRequest(), 60, submit) for _p, submit, n in entries]
    ps = [p for p, _s, _n in entries]
    want = all(order_key(a, pa) < order_key(b, pb)
               for a, pa, b, pb in zip(jobs, ps, jobs[1:], ps[1:]))
    assert kinetic.ranked(jobs, ps) is want


SETTINGS = settings(max_examples=60 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))


def _replay(nodes, sims, text, per_event, monkeypatch, module, switch: str, on: bool):
    monkeypatch.setattr(module, switch, on)
    return replay_cycles(nodes, sims, text, per_event, lambda now, result: (
        now, result.decisions, result.order,
        sorted((jid, kr.start, kr.end, kr.allocation, kr.made_at)
               for jid, kr in result.state.reservations.items())))


def easy_case(draw):
    """Nodes, jobs, config/easy.cfg's priority and reservation settings, per_event."""
    nodes, sims = nodes_and_jobs(draw, two_node=False)
    text = ("RESERVATIONPOLICY CURRENTHIGHEST\nRESERVATIONDEPTH 1\nQUEUETIMEWEIGHT 1\n"
            f"XFACTORWEIGHT {draw(st.sampled_from([1, 10, 100]))}\nXFMINWCLIMIT 00:02:00\n"
            "BACKFILLPOLICY FIRSTFIT\nBACKFILLDEPTH 0\nRESERVATIONRETRYTIME 00:05:00\n"
            f"NODEALLOCATIONPOLICY {draw(st.sampled_from(['MINRESOURCE', 'FIRSTAVAILABLE']))}\n")
    return nodes, sims, text, draw(st.booleans())


def check_easy_on_off(monkeypatch, draw, module, switch: str) -> None:
    """easy_case replayed with `module.switch` on, then off: every cycle's decisions, order
    and reservations, and every job's start, equal."""
    nodes, sims, text, per_event = easy_case(draw)
    fast, definition = (_replay(nodes, sims, text, per_event, monkeypatch, module, switch, on)
                        for on in (True, False))
    assert fast[1] == definition[1]
    assert fast[0] == definition[0]


@SETTINGS
@given(st.data())
def test_xf_replay_decides_as_one_call_per_job(monkeypatch, data):
    """config/easy.cfg's priority and reservation settings on several node kinds: every
    cycle's decisions, order and reservations, and every job's start, with the batch on
    and off (`_check()` after every cycle: SimOptions.check_table)."""
    check_easy_on_off(monkeypatch, data.draw, engine_mod, "XF_BATCH")
