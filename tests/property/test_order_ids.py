"""core/result.LAZY_ORDER (a full cycle's order handed back as an OrderIds, written out
when first read) changes nothing: two states go through the same random cycles, one with
the lazy order, the other with the list written out at once (the definition). Each lazy
order is read only after the NEXT cycle on its state has run (that cycle reuses the
selection cache holding the entries the order was made from), and must equal the eager
one there, as the decisions, the pending starts and the planner (`_check()`) must at every
step. A second test builds OrderIds over a cycle's entries and then empties and refills
the list it was given: the ids read afterwards are still the entries' of the moment it was
made (the copy its docstring promises).
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import result
from maui_py.core.parked import FullOrder
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start

from .on_off import cycle_with
from .queue_steps import edit_queue, queue_of

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def scenarios(draw):
    nodes = tuple(Node(f"n{i}", Resources(procs=draw(st.sampled_from([2, 4, 8])),
                                          mem=draw(st.sampled_from([1000, 4000]))))
                  for i in range(draw(st.integers(2, 5))))
    text = (f"RESERVATIONDEPTH {draw(st.sampled_from([1, 3, 50]))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'BESTFIT']))}\n"
            + draw(st.sampled_from(["", "QOSCFG[hi] PRIORITY=100\nQOSWEIGHT 1\n",
                                    "XFACTORWEIGHT 10\n"])))
    steps = [(draw(st.sampled_from(["arrive", "arrive", "end", "hold", "release", "tick"])),
              draw(st.integers(0, 10_000))) for _ in range(draw(st.integers(2, 10)))]
    return nodes, text, steps


def _job(name: str, pick: int, now: int) -> Job:
    req = JobRequest(tasks=1 + pick % 5, per_task=Resources(1, 250 * (pick % 3)))
    return Job(name, f"u{pick % 3}", req, 60 + 60 * (pick % 6), now - pick % 400,
               qos="hi" if pick % 4 == 0 else "")


def _run(jobs, snap_at, cfg, state, lazy):
    return cycle_with(result, "LAZY_ORDER", lazy, ClusterSnapshot(snap_at, *jobs), cfg, state)


@SETTINGS
@given(scenarios())
def test_the_lazy_order_reads_as_the_list_even_after_the_next_cycle(sc):
    nodes, text, steps = sc
    cfg = parse_config(text)
    jobs: dict[str, Job] = {}
    on = off = None
    unread = None               # the last lazy result, its order not read yet
    now = 1000
    for k, (kind, pick) in enumerate(steps):
        now += 30
        if kind == "arrive":
            for b in range(1 + pick % 4):
                jobs[f"j{k}.{b}"] = _job(f"j{k}.{b}", pick >> b, now)
        else:
            edit_queue(jobs, kind, pick)
        snap = (nodes, tuple(jobs.values()))
        got = _run(snap, now, cfg, on.state if on else None, True)
        want = _run(snap, now, cfg, off.state if off else None, False)
        assert isinstance(want.order, (list, FullOrder)), type(want.order)
        assert isinstance(got.order, (result.OrderIds, FullOrder)), type(got.order)
        if unread is not None:      # read only now, after the next cycle on its state
            assert unread[0].order == unread[1], f"step {k - 1}: the lazy order changed"
        assert got.decisions == want.decisions, f"step {k} ({kind})"
        assert got.state.pending == want.state.pending, f"step {k}"
        unread = (got, list(want.order))
        on, off = got, want
        for d in got.decisions:
            if isinstance(d, Start):
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING,
                                         start_time=now, allocation=d.allocation)
    if unread is not None:
        assert list(unread[0].order) == unread[1]
        assert len(unread[0].order) == len(unread[1])
        queued, _running, _one = queue_of(jobs, 0)
        assert set(unread[0].order) <= set(unread[1]) | set(queued)


@SETTINGS
@given(scenarios(), st.integers(0, 3))
def test_order_ids_copies_the_entries_it_is_given(sc, cut):
    nodes, text, steps = sc
    jobs = {}
    for k, (_kind, pick) in enumerate(steps):
        jobs[f"j{k}"] = _job(f"j{k}", pick, 1000)
    out = _run((nodes, tuple(jobs.values())), 1000, parse_config(text), None, False)
    entries = list(out.state.caches.selection.order) if out.state.caches.selection else []
    want = [e[0].id for e in entries]
    view = result.OrderIds(entries)
    entries[cut:] = entries[:cut][::-1]             # the caller goes on using its list
    assert list(view) == want and len(view) == len(want) and view == want
    assert (view[0] == want[0]) if want else not view
    assert list(result.order_ids([])) == []
