"""HIGHEST's kept reservations are re-made only when room came free that they could use
(policy/kept.Stamps): counted in operations (re-makes), never in seconds."""

from __future__ import annotations

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.policy import highest, kept
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

CFG = ("RESERVATIONPOLICY HIGHEST\nRESERVATIONDEPTH 100\nQUEUETIMEWEIGHT 1\n"
       "BACKFILLPOLICY FIRSTFIT\n")
NODES = (Node("c0", Resources.of(4, mem=4096)),
         Node("g0", Resources.of(4, mem=4096, gres={"gpu": 1})))
GPU = Resources.of(1, gpu=1)


def _workload(gpu_runs: int) -> list[SimJob]:
    """A GPU job holds the one GPU (limit 10,000 s, it runs `gpu_runs`); five GPU jobs wait
    behind it, each reserved; forty one-core jobs arrive and end early, one by one."""
    sims = [SimJob(Job("gpu-long", "u", JobRequest(per_task=GPU), 10_000, 0), gpu_runs)]
    sims += [SimJob(Job(f"gpu-{k}", "u", JobRequest(per_task=GPU), 1_000, 1 + k), 1_000)
             for k in range(5)]
    sims += [SimJob(Job(f"cpu-{k:02d}", "u", JobRequest(), 5_000, 10 + 50 * k), 20)
             for k in range(40)]
    return sims


def _replay(sims, settled: bool, monkeypatch, text: str = CFG):
    """(every cycle's starts and reservations, each job's start, re-makes made)."""
    monkeypatch.setattr(kept, "SETTLED", settled)
    remakes = [0]
    slide = highest._slide

    def counted(*a):
        remakes[0] += 1
        return slide(*a)
    monkeypatch.setattr(highest, "_slide", counted)
    seen = []
    res = Simulation(NODES, sims, parse_config(text), SimOptions(on_cycle=lambda now, r: seen.append(
        (now, sorted(d.job_id for d in r.starts()),
         sorted((j, k.start, k.allocation) for j, k in r.state.reservations.items()))))).run()
    monkeypatch.setattr(highest, "_slide", slide)
    return seen, {j: r.start for j, r in res.records.items()}, remakes[0]


def test_room_the_reservations_cannot_use_re_makes_none_of_them(monkeypatch):
    fast = _replay(_workload(10_000), True, monkeypatch)
    definition = _replay(_workload(10_000), False, monkeypatch)
    assert fast[:2] == definition[:2]
    # the definition re-makes the five at every one of the ~80 cycles after they are made;
    # left in place, each is re-made once (the cycle after it was made: no stamp yet)
    assert definition[2] >= 5 * 70
    assert fast[2] <= 5 + 5


def test_an_early_end_on_their_node_re_makes_them_and_the_first_starts(monkeypatch):
    fast = _replay(_workload(500), True, monkeypatch)
    definition = _replay(_workload(500), False, monkeypatch)
    assert fast[:2] == definition[:2]
    assert fast[1]["gpu-0"] == 500          # its reservation moved from 10,000 to the end


def test_maui_s_own_re_make_re_makes_every_one(monkeypatch):
    """Under core/compat.MAUI33_HIGHEST a kept reservation is re-made where Maui's
    MJobGetEStartTime finds a start, one walk a cycle, not at its earliest with the others
    held: nothing given back is no proof it stays, so none is left in place."""
    from maui_py.cfg.choices import MauiCompat
    from maui_py.core.compat import COMPAT_RULES, MAUI33_HIGHEST
    monkeypatch.setitem(COMPAT_RULES, MauiCompat("3.3"), MAUI33_HIGHEST)
    text = CFG + "MAUICOMPAT 3.3\n"
    fast = _replay(_workload(10_000), True, monkeypatch, text)
    definition = _replay(_workload(10_000), False, monkeypatch, text)
    assert fast == definition
    assert fast[2] >= 5 * 70
