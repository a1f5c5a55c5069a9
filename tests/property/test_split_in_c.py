"""The snapshot's split into running, queued and by-id jobs made in C (core/jobsets
SPLIT_IN_C, cyc6) against the loop over every job (the definition): random job lists
with every state (and a state that is no JobState member), finished jobs, and ids given
twice give the same lists of the same objects in the same order, and the same map
with the same keys in the same order, holding the same objects."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.core import jobsets
from maui_py.model import Job, JobRequest, JobState

STATES = list(JobState) + ["Running", "Idle", "odd"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.sampled_from(STATES)), max_size=40),
       st.booleans())
def test_split_in_c_equals_the_loop(spec, as_tuple):
    jobs = [Job(f"j{k}", "u", JobRequest(), 60, 0, state=s) for k, s in spec]
    given_jobs = tuple(jobs) if as_tuple else jobs
    old = jobsets.SPLIT_IN_C
    try:
        jobsets.SPLIT_IN_C = True
        fast = jobsets._split(given_jobs)
        jobsets.SPLIT_IN_C = False
        slow = jobsets._split(given_jobs)
    finally:
        jobsets.SPLIT_IN_C = old
    for a, b in zip(fast[:2], slow[:2]):
        assert [id(j) for j in a] == [id(j) for j in b]
    assert list(fast[2]) == list(slow[2])
    assert all(fast[2][k] is slow[2][k] for k in slow[2])
    assert len(fast[0]) + len(fast[1]) <= len(jobs)
