"""PriorityEngine.static_sums with the static part worked out once for the queue when it is
one float for every job (engine.STATIC_CONST, cyc55) against static_sums keyed per
credential set (the definition, switch off) and static_sum asked job by job on a fresh
engine: random queues of repeated credentials, QOS, classes, groups and request shapes,
under settings where the shortcut applies (no PRIORITY, zero PRIORITY entries, weights of
any sign, a GROUPCFG CLASSWEIGHT) and where it must not (a PRIORITY on any credential kind
or on a DEFAULT object, RES weights), give the same floats to the bit, in the same order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Resources
from maui_py.priority import engine
from maui_py.priority.engine import PriorityEngine

CREDS = ["USERCFG[u1] PRIORITY=0\nQOSCFG[hi] MAXJOB=3\n", "USERCFG[u1] PRIORITY=7\n",
         "GROUPCFG[g1] PRIORITY=2\n", "ACCOUNTCFG[a1] PRIORITY=4\n", "QOSCFG[hi] PRIORITY=100\n",
         "CLASSCFG[b] PRIORITY=-5\n", "USERCFG[DEFAULT] PRIORITY=3\n",
         "GROUPCFG[g0] CLASSWEIGHT=3\nCLASSCFG[b] PRIORITY=0\n"]


@st.composite
def configs(draw):
    """Every credential weight drawn (zero, either sign), RES weights sometimes, and none
    to two credential lines of CREDS (some keep the shortcut, most rule it out)."""
    lines = [f"CREDWEIGHT {draw(st.sampled_from([1, -1, 3]))}"]
    lines += [f"{w}WEIGHT {draw(st.sampled_from([0, 3, -2]))}"
              for w in ("USER", "GROUP", "ACCOUNT", "QOS", "CLASS")]
    if draw(st.integers(0, 3)) == 0:
        lines.append("RESWEIGHT 2\nPROCWEIGHT 3")
    return parse_config("\n".join(lines) + "\n" + "".join(
        draw(st.lists(st.sampled_from(CREDS), max_size=2))))


def _sums(cfg, jobs, on: bool) -> list[str]:
    old = engine.STATIC_CONST
    engine.STATIC_CONST = on
    try:
        return [v.hex() for v in PriorityEngine(cfg, 64, 64_000).static_sums(jobs)]
    finally:
        engine.STATIC_CONST = old


@settings(max_examples=200, deadline=None)
@given(configs(),
       st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["", "hi"]),
                          st.sampled_from(["", "b"]), st.integers(1, 4),
                          st.sampled_from([0, 500, 1000]), st.sampled_from([60, 600]),
                          st.sampled_from(["", "a1"])),
                min_size=2, max_size=30))
def test_one_static_part_for_the_queue_equals_keying_each_job(cfg, spec):
    jobs = [Job(f"j{k}", f"u{u}", JobRequest(tasks=t, per_task=Resources(1, m)), wc, 0,
                group=f"g{u % 2}", account=a, qos=q, class_=c)
            for k, (u, q, c, t, m, wc, a) in enumerate(spec)]
    on = _sums(cfg, jobs, True)
    assert on == _sums(cfg, jobs, False)
    fresh = PriorityEngine(cfg, 64, 64_000)
    assert on == [fresh.static_sum(j).hex() for j in jobs]


def test_the_shortcut_is_taken_without_priorities_and_not_with_one():
    assert PriorityEngine(parse_config("CREDWEIGHT 2\nUSERWEIGHT 3\n"), 64, 64_000)._static_const
    for text in ("QOSCFG[hi] PRIORITY=1\n", "CLASSCFG[DEFAULT] PRIORITY=2\n", "PROCWEIGHT 1\n"):
        assert not PriorityEngine(parse_config(text), 64, 64_000)._static_const, text
