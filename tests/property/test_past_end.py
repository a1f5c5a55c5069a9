"""policy/kept.past_end, the test that turns HIGHEST's stamps off for a cycle: the one pass in
C over the running jobs (no span: the wallclock) answers as the definition, some job with a
start whose start + min(wallclock, span) is at or before now, also with jobs not started
(start_time None) and with a span that differs from the wallclock."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.model import Job, JobRequest
from maui_py.policy.kept import past_end


def _definition(running, now, span) -> bool:
    return any(j.start_time is not None and j.start_time + min(j.wallclock, int(span(j))) <= now
               for j in running)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 500)), st.integers(1, 400),
                          st.integers(1, 400)), max_size=8),
       st.integers(0, 900))
def test_past_end_answers_as_the_definition(jobs, now):
    running = []
    spans = {}
    for k, (start, wall, predicted) in enumerate(jobs):
        j = replace(Job(f"j{k}", "u", JobRequest(tasks=1), wall, 0), start_time=start)
        running.append(j)
        spans[j.id] = predicted
    assert past_end(running, now, None) == _definition(running, now, lambda j: j.wallclock)
    span = lambda j: spans[j.id]        # noqa: E731
    assert past_end(running, now, span) == _definition(running, now, span)
