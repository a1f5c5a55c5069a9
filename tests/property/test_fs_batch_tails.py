"""The fair-share re-ranking's batched tails (FairShare.empties, core/selection._sets_tails,
switch selection.BATCH_TAILS) equal the one-set-at-a-time definition (FairShare.empty,
selection._of_creds): the same answers for every credential set over usage spread across
several FSINTERVAL windows (decayed), and the same decisions and order, cycle after cycle,
with the batch on as with it off, each side's FsTails checked (`check()`).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import selection
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start
from maui_py.priority.fairshare import SYSTEM, FairShare

from .on_off import replay_on_off

KEYS = ["user:a", "user:b", "user:c", "group:g", "acct:p", "qos:hi", SYSTEM]
SETS = [("a", "g", "p", "", ""), ("b", "", "", "", ""), ("c", "g", "", "hi", ""),
        ("d", "", "p", "hi", ""), ("a", "", "", "hi", "")]
modes = st.sampled_from(["", "+", "-", "^", "%"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(KEYS), st.floats(0, 1e6)),
                max_size=12),
       st.lists(st.tuples(st.floats(0.5, 60), modes), min_size=4, max_size=4),
       st.booleans(), st.lists(st.sampled_from(range(len(SETS))), max_size=8),
       st.lists(st.sampled_from(range(len(SETS))), max_size=3))
def test_empties_answers_as_empty_asked_set_by_set(usage, targets, percent, asked, before):
    """empties(sets) == [empty(s) ...] of a fresh FairShare with the same windows (the
    current one and older, decayed ones), repeated sets included, whatever was asked of
    the batched side before (subfactors_of shares its per-key values), and the
    subfactors asked after are those of the fresh side."""
    mode = "DEDICATEDPS%" if percent else "DEDICATEDPS"
    (ua, um), (ga, gm), (da, dm), (qa, qm) = targets
    cfg = parse_config(f"FSPOLICY {mode}\nFSINTERVAL 100\nFSDEPTH 3\nFSDECAY 0.5\n"
                       f"USERCFG[a] FSTARGET={ua:.2f}{um}\nGROUPCFG[g] FSTARGET={ga:.2f}{gm}\n"
                       f"USERCFG[DEFAULT] FSTARGET={da:.2f}{dm}\n"
                       f"QOSCFG[hi] FSTARGET={qa:.2f}{qm}\n", "t")
    windows: dict[int, dict[str, float]] = {}
    for w, key, v in usage:
        windows.setdefault(w, {})[key] = windows.get(w, {}).get(key, 0.0) + v
    data = {"last": 350, "windows": [[100 * w, d] for w, d in sorted(windows.items())]}
    fresh, fs = FairShare(cfg), FairShare(cfg)
    for f in (fresh, fs):
        f.restore(data)
    for k in before:
        fs.subfactors_of(SETS[k])
    sets = [SETS[k] for k in asked]
    want = [fresh.empty(s) for s in sets]
    assert fs.empties(sets) == want
    for s in SETS:
        assert fs.subfactors_of(s) == fresh.subfactors_of(s)


def test_empties_with_fair_share_off_or_no_usage_is_every_set_empty():
    """No usage yet (nothing charged), and FSPOLICY NONE: every set is empty, as empty()
    says; a non-empty set exists once usage is charged."""
    on = FairShare(parse_config("FSPOLICY DEDICATEDPS\nUSERCFG[a] FSTARGET=10\n", "t"))
    off = FairShare(parse_config("USERCFG[a] FSTARGET=10\n", "t"))
    assert on.empties(SETS) == [True] * len(SETS) == off.empties(SETS)
    on.restore({"last": 50, "windows": [[0, {"user:b": 5.0, SYSTEM: 5.0}]]})
    assert on.empties(SETS[:2]) == [False, True] == [on.empty(s) for s in SETS[:2]]


FAIRSHARE = ("FSPOLICY DEDICATEDPS\nFSINTERVAL 120\nFSDEPTH 3\nFSDECAY 0.5\nFSWEIGHT 1\n"
             "FSUSERWEIGHT 10\nFSQOSWEIGHT 5\nFSGROUPWEIGHT 3\n")
TARGETS = ["USERCFG[DEFAULT] FSTARGET=5.0-\n",
           "USERCFG[DEFAULT] FSTARGET=30\nUSERCFG[u1] FSTARGET=40-\nQOSCFG[hi] FSTARGET=20+\n",
           "GROUPCFG[g1] FSTARGET=25\nUSERCFG[u2] FSTARGET=10+\nQOSCFG[hi] MAXJOB=1\n",
           "USERCFG[DEFAULT] FSTARGET=20-\nUSERCFG[u0] FSTARGET=3600^\n"]


@st.composite
def scenarios(draw):
    """A deep fair-share queue (one small node, long jobs, several users, groups and
    QOS), so that most cycles re-rank kept jobs over many credential sets."""
    nodes = (Node("n0", Resources(procs=draw(st.sampled_from([2, 4])), mem=4000)),)
    text = (f"RESERVATIONDEPTH {draw(st.sampled_from([1, 2]))}\nBACKFILLPOLICY FIRSTFIT\n"
            "DEFERTIME 60\nDEFERCOUNT 2\n" + FAIRSHARE + draw(st.sampled_from(TARGETS)))
    steps = [(draw(st.sampled_from(["arrive", "arrive", "arrive", "end", "end", "hold",
                                    "release", "copy", "tick"])),
              draw(st.integers(0, 10_000))) for _ in range(draw(st.integers(10, 30)))]
    return nodes, text, steps


def _arrivals(k: int, pick: int, now: int) -> dict[str, Job]:
    return {f"j{k}{b}": Job(f"j{k}{b}", f"u{pick % 5}",
                            JobRequest(tasks=1 + (pick >> b) % 2, per_task=Resources(1, 100)),
                            900 + pick % 3000, now, group=f"g{pick % 2}", qos="hi" if pick % 3 == 0 else "")
            for b in range(1 + pick % 3)}


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_cycles_with_batched_tails_decide_as_with_tails_set_by_set(sc):
    replay_on_off(selection, "BATCH_TAILS", sc, _arrivals, gap=40, priorities=True)


@pytest.mark.parametrize("batch", [True, False])
def test_the_batch_is_used_on_a_fair_share_queue(batch, monkeypatch):
    """The batched path is the one taken under fair share with a queue to re-rank (else
    the comparison above would compare the definition with itself)."""
    calls = []
    real = FairShare.empties
    monkeypatch.setattr(FairShare, "empties", lambda self, sets: calls.append(1) or real(self, sets))
    monkeypatch.setattr(selection, "BATCH_TAILS", batch)
    cfg = parse_config("RESERVATIONDEPTH 1\n" + FAIRSHARE + TARGETS[1])
    nodes = (Node("n0", Resources(procs=1, mem=4000)),)
    one = JobRequest(tasks=1, per_task=Resources(1, 0))
    jobs = [Job(f"j{i}", f"u{i % 3}", one, 5000, 900 + i) for i in range(6)]
    state = SchedulerState()
    for now in (1000, 1100, 1200):
        res = run_cycle(ClusterSnapshot(now, nodes, tuple(jobs)), cfg, state, explain=False)
        state = res.state
        jobs = [replace(j, state=JobState.RUNNING, start_time=now, allocation=d.allocation)
                if (d := next((d for d in res.decisions if isinstance(d, Start)
                               and d.job_id == j.id), None)) else j for j in jobs]
    assert bool(calls) == batch
