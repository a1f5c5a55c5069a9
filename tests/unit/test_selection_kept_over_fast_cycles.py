"""A cycle answered from what changed (core/changes.py) keeps no priority order of its own;
the last full cycle's order (core/selection.SelectionCache) stays for the next full cycle to
start from, so the per-shape first select (core/firstselect.py) runs once per table and
configuration, not after every such cycle: counted in calls, never in seconds."""

from __future__ import annotations

from maui_py.cfg import parse_config
from maui_py.core import changes, firstselect
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

CFG = ("RESERVATIONPOLICY HIGHEST\nRESERVATIONDEPTH 100\nQUEUETIMEWEIGHT 1\n"
       "BACKFILLPOLICY FIRSTFIT\n")
NODES = tuple(Node(f"c{i}", Resources.of(4, mem=4096)) for i in range(3))


def _sims() -> list[SimJob]:
    """Jobs of two nodes arriving every 10 s, running 300 s of 1,000: arrival-only cycles
    between the ends, and a queue that stays deep."""
    req = JobRequest(tasks=8, tasks_per_node=4, per_task=Resources.of(1))
    return [SimJob(Job(f"j{k:02d}", f"u{k % 3}", req, 1_000, 10 * k), 300) for k in range(40)]


def _replay(monkeypatch, every: int):
    """(the first select's calls, each job's start and end, cycles answered from what
    changed); the fast path declines every `every`-th cycle (as it does when a job
    changes, a node does, a defer ends ...), which then runs in full."""
    calls, fast = [], [0, 0]
    first, run = firstselect.first_select, changes.run

    def counted(c, queued):
        calls.append(c.now)
        return first(c, queued)

    def some(c):
        fast[0] += 1
        got = None if fast[0] % every == 0 else run(c)
        fast[1] += got is not None
        return got
    monkeypatch.setattr(firstselect, "first_select", counted)
    monkeypatch.setattr(changes, "run", some)
    res = Simulation(NODES, _sims(), parse_config(CFG), SimOptions(check_table=True)).run()
    monkeypatch.setattr(firstselect, "first_select", first)
    monkeypatch.setattr(changes, "run", run)
    return calls, {j: (r.start, r.end) for j, r in res.records.items()}, fast[1]


def test_the_first_select_runs_once_while_table_and_configuration_stay(monkeypatch):
    calls, starts, fast = _replay(monkeypatch, 3)
    assert fast >= 100                  # most cycles answered from what changed
    assert len(calls) <= 1, calls
    # every cycle in full decides the same
    assert starts == _replay(monkeypatch, 1)[1]
