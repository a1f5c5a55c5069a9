"""One earliest-start question asked twice, with a planner shortcut on and with it off (the
definition), for the property tests of the scan's shortcuts (count bound, gain bound, the
free-shape index at a later instant): the request drawn, the flags set, floors forgotten, the
two answers compared placement for placement."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st

from .strategies import requests

GPUS = (0, 0, 1, 2)
POLICIES = ["FIRSTAVAILABLE", "LASTAVAILABLE", "MINRESOURCE", "PRIORITY", "CPULOAD", "FASTEST"]


def answer(table, flags: dict[str, bool], req, w, after, until, policy, job_class):
    """`table.earliest_start` with the attributes `flags` set on the table for this one
    question; floors forgotten first, so neither side reads a floor the other found."""
    for name, value in flags.items():
        setattr(table, name, value)
    table._floors_at = None
    try:
        return table.earliest_start(req, w, after, until=until, policy=policy,
                                    job_class=job_class)
    finally:
        for name in flags:
            delattr(table, name)


def spread(draw, req, per_node: int, lo: int, hi: int):
    """`req` as a tasks-per-node request over lo..hi nodes, as the MPI jobs that wait are."""
    tpn = draw(st.integers(1, per_node))
    return replace(req, tasks_per_node=tpn, nodes=0, tasks=tpn * draw(st.integers(lo, hi)))


def start_question(draw, nodes) -> tuple:
    """A start-now question as the node choice meets it: (request, wallclock, class); the
    request sometimes several nodes with a few tasks on each."""
    req = draw(requests(nodes, GPUS))
    if draw(st.booleans()):        # several nodes, a few tasks on each
        req = spread(draw, req, 3, 1, 6)
    return req, draw(st.integers(1, 900)), draw(st.sampled_from(["", "", "batch"]))


def assert_same(fast, walked) -> None:
    """Both found nothing, or the same start, end, tasks per node and amounts."""
    assert bool(fast) == bool(walked)
    if fast:
        assert (fast.start, fast.end, fast.items, fast.allocation) == (
            walked.start, walked.end, walked.items, walked.allocation)


def come_and_go(data, table, steps: int, ops: list[str], advance: int, ask) -> None:
    """Up to `steps` random operations on `table` drawn from `ops`: reserve a random request
    at its earliest start, release a hold, move the origin by up to `advance` seconds, or
    `ask(table)` (the comparison); the table's invariants checked after each."""
    made = 0
    for _ in range(data.draw(st.integers(1, steps))):
        op = data.draw(st.sampled_from(ops))
        if op == "reserve":
            req = data.draw(requests(table.nodes, GPUS))
            start = table.origin + data.draw(st.sampled_from([0, 0, 50, 300]))
            p = table.earliest_start(req, data.draw(st.integers(1, 500)), start,
                                     policy=data.draw(st.sampled_from(POLICIES)))
            if p:
                table.reserve(f"o{made}", p.start, p.end, p.allocation)
                made += 1
        elif op == "release" and table.holds:
            table.release(data.draw(st.sampled_from(sorted(table.holds))))
        elif op == "advance":
            table.advance(table.origin + data.draw(st.integers(1, advance)))
        else:
            ask(table)
        table._check()
