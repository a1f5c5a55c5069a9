"""The reference simulator's conservative backfilling against its definition (issue 32).

Mu'alem and Feitelson (2001): an arriving job is reserved at its earliest start with every
existing reservation held; when a job ends, compression takes each waiting job in queue order
out and puts it back at its earliest start with the others held, so it never moves later.
The hand-made cases below are worked out from that definition alone; the property test
watches every reservation the oracle holds while it runs.
"""

from __future__ import annotations


from hypothesis import given, settings
from hypothesis import strategies as st
from tests.scripts import load_script



def _reference():
    return load_script("benchmarks/reference_sim.py", "reference_sim_unit")


REF = _reference()


def _starts(jobs, procs=10):
    """{id: start}; jobs as (submit, id, procs, runtime, requested time)."""
    return {jid: s for jid, (s, _e) in REF.simulate(sorted(jobs), procs, "conservative").items()}


def test_an_early_end_compresses_a_later_reservation_earlier():
    # A holds all 10 processors until 100 but ends at 10; B, reserved at 100 on arrival,
    # is put back at its earliest start, 10.
    starts = _starts([(0, 1, 10, 10, 100), (1, 2, 10, 50, 50)])
    assert starts == {1: 0, 2: 10}


def test_a_reservation_never_moves_later_when_an_earlier_job_is_re_placed():
    # L1 (5 procs, expected end 100, really 50) and L2 (5 procs, ends at 60) run. B (10 procs)
    # is reserved at 100, C (5 procs, 40 s) at 60 in the hole before it. At 50 L1 ends early:
    # B, taken out first, meets C's reservation in [60, 100) and stays; C moves to 50. At 60
    # L2 ends: B moves to 90, after C. Planning B first from scratch at 50 would start B at 60
    # and push C from 60 to 160.
    jobs = [(0, 1, 5, 50, 100), (0, 2, 5, 60, 60), (1, 3, 10, 100, 100), (2, 4, 5, 40, 40)]
    starts = _starts(jobs)
    assert starts[4] == 50
    assert starts[3] == 90


def test_a_new_arrival_does_not_displace_existing_reservations():
    # L fills the machine until 100; B (6 procs) is reserved at 100. C (10 procs, 10 s)
    # would fit at 100 were B moved: it goes after B, at 200. D (4 procs) backfills beside B.
    base = [(0, 1, 10, 100, 100), (1, 2, 6, 100, 100)]
    alone = _starts(base)
    starts = _starts(base + [(2, 3, 10, 10, 10), (3, 4, 4, 100, 100)])
    assert alone[2] == starts[2] == 100
    assert starts[3] == 200
    assert starts[4] == 100


JOB = st.tuples(st.integers(0, 60), st.integers(1, 4), st.integers(1, 40), st.integers(0, 40))


@settings(max_examples=200, deadline=None)
@given(st.lists(JOB, min_size=1, max_size=14))
def test_reservations_move_only_in_compression_and_never_later(raw):
    jobs = sorted((sub, jid, p, run, run + extra)
                  for jid, (sub, p, run, extra) in enumerate(raw, 1))
    seen, original = {}, REF.compress

    def watched(prof, now, waiting, seq):
        for jid, w in waiting.items():   # between compressions nothing held moves
            assert seen.setdefault(jid, w[0]) == w[0], f"job {jid} moved outside compression"
        before = {jid: w[0] for jid, w in waiting.items()}
        original(prof, now, waiting, seq)
        for jid, w in waiting.items():
            assert now <= w[0] <= before[jid], f"job {jid} moved from {before[jid]} to {w[0]}"
            seen[jid] = w[0]

    REF.compress = watched
    try:
        out = REF.simulate(jobs, 4, "conservative")
    finally:
        REF.compress = original
    assert set(out) == {j[1] for j in jobs}
    for sub, jid, p, run, _req in jobs:
        start, end = out[jid]
        assert start >= sub and end == start + run
        assert start == seen.get(jid, start)   # a job starts at its last reservation
    for t in {s for s, _e in out.values()}:    # never more than the machine at any start
        assert sum(j[2] for j in jobs if out[j[1]][0] <= t < out[j[1]][1]) <= 4
