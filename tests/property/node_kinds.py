"""Shared strategies for replays on the node table: a few node kinds (memory, GPUs, a
feature) and jobs of tasks-per-node, two-node, whole-node and "any" requests that mostly
end before their limit, arriving in bursts, or one-core nodes for the count planner; and
the replay the on/off tests compare (test_memo_switches, test_inplace,
test_kept_settled, test_askable)."""

from __future__ import annotations

from hypothesis import strategies as st

from typing import Any, Callable

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

KINDS = (Resources.of(4, mem=4096), Resources.of(8, mem=16384),
         Resources.of(4, mem=8192, gres={"gpu": 2}))
PER_TASK = (Resources.of(1, mem=512), Resources.of(1, mem=3000), Resources.of(2, mem=1024),
            Resources.of(4, mem=1024), Resources.of(1, gpu=1), Resources.of(1))


def request(draw, n: int, two_node: bool) -> JobRequest:
    """Tasks per node (half the draws, two thirds without `two_node`), a two-node spread
    (with `two_node`), else "any" tasks, one in six exclusive."""
    per = PER_TASK[draw(st.integers(0, len(PER_TASK) - 1))]
    feats = frozenset({"ib"}) if draw(st.integers(0, 4)) == 0 else frozenset()
    kind = draw(st.integers(0, 5))
    if kind <= 2 or (kind == 3 and not two_node):
        tpn = draw(st.integers(1, 2))
        nodes = draw(st.integers(1, n))
        return JobRequest(tasks=tpn * nodes, per_task=per, nodes=nodes, tasks_per_node=tpn,
                          features=feats, exclusive=draw(st.integers(0, 9)) == 0)
    if kind == 3:
        return JobRequest(tasks=draw(st.integers(2, 6)), per_task=per, nodes=2, features=feats)
    return JobRequest(tasks=draw(st.integers(1, 10)), per_task=per, features=feats,
                      exclusive=kind == 5)


def nodes_and_jobs(draw, two_node: bool,
                   counting: bool = False) -> tuple[tuple[Node, ...], list[SimJob]]:
    """2-7 nodes of the kinds above, some with the feature (with `counting`: identical
    one-core nodes, so the count planner plans, and jobs of 1..n processors), and 3-30 jobs
    of three users."""
    n = draw(st.integers(2, 7))
    if counting:
        nodes = tuple(Node(f"n{i}", Resources.of(1)) for i in range(n))
    else:
        nodes = tuple(Node(f"n{i}", KINDS[draw(st.integers(0, 2))],
                           features=frozenset({"ib"}) if draw(st.booleans()) else frozenset())
                      for i in range(n))
    sims, t = [], 0
    for k in range(draw(st.integers(3, 30))):
        t += draw(st.sampled_from([0, 0, 1, 5, 10, 30, 120]))
        wc = draw(st.integers(10, 500))
        run = draw(st.sampled_from([wc, draw(st.integers(1, wc))]))
        req = (JobRequest(tasks=draw(st.integers(1, n))) if counting
               else request(draw, n, two_node))
        sims.append(SimJob(Job(f"j{k:02d}", f"u{k % 3}", req, wc, t), run))
    return nodes, sims


def kept_view(now: int, result) -> tuple:
    """What an on/off replay compares after each cycle: the time, the decisions, the
    reports and the reservations (job, start, end, allocation)."""
    return (now, result.decisions, result.reports,
            sorted((jid, kr.start, kr.end, kr.allocation)
                   for jid, kr in result.state.reservations.items()))


def replay_cycles(nodes, sims, text: str, per_event: bool,
                  view: Callable[[int, Any], Any]) -> tuple[list, dict]:
    """The simulation with the table checked every cycle: view(now, result) of every cycle,
    and each job's (start, end, kind, runs); the schedule checked feasible."""
    seen = []
    res = Simulation(nodes, sims, parse_config(text),
                     SimOptions(check_table=True, per_event=per_event,
                                on_cycle=lambda now, result: seen.append(view(now, result)))).run()
    assert res.check.ok, res.check.violations
    return seen, {j: (r.start, r.end, r.kind, r.runs) for j, r in res.records.items()}


def kept_text(draw, extras: list[str]) -> str:
    """A reservation policy, depth, backfill and node allocation policy drawn for the
    kept-reservation on/off replays, plus one of `extras` (or nothing)."""
    return (f"RESERVATIONPOLICY {draw(st.sampled_from(['CURRENTHIGHEST', 'HIGHEST']))}\n"
            f"QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH {draw(st.sampled_from([1, 1, 2, 4]))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'FIRSTFIT', 'BESTFIT']))}\n"
            "NODEALLOCATIONPOLICY "
            f"{draw(st.sampled_from(['FIRSTAVAILABLE', 'MINRESOURCE', 'LASTAVAILABLE']))}\n"
            + draw(st.sampled_from(["", "", *extras])))


STANDING = ["", "SRCFG[maint] STARTTIME=00:20:00 ENDTIME=00:25:00 PERIOD=DAY HOSTLIST=n0\n"]
"""No standing reservation, or a daily one on n0 (the memos must not answer across it)."""


@st.composite
def full_snapshots(draw, kinds: int, most: int, depths: list[int], allocations: list[str]):
    """(nodes, config text, steps) for on_off.replay_on_off on the node table: one to `most`
    nodes of the first `kinds` KINDS, FIRSTFIT under CURRENTHIGHEST or HIGHEST at one of
    `depths`, one of `allocations`, sometimes STANDING's reservation; arrivals, ends and
    ticks."""
    nodes = tuple(Node(f"n{i}", KINDS[draw(st.integers(0, kinds - 1))])
                  for i in range(draw(st.integers(1, most))))
    text = (f"RESERVATIONDEPTH {draw(st.sampled_from(depths))}\nBACKFILLPOLICY FIRSTFIT\n"
            f"RESERVATIONPOLICY {draw(st.sampled_from(['CURRENTHIGHEST', 'HIGHEST']))}\n"
            "QUEUETIMEWEIGHT 1\nJOBMAXOVERRUN 00:01:00\n"
            f"NODEALLOCATIONPOLICY {draw(st.sampled_from(allocations))}\n"
            + draw(st.sampled_from(STANDING)))
    kinds_of_step = ["arrive", "arrive", "arrive", "end", "end", "tick", "tick"]
    steps = [(draw(st.sampled_from(kinds_of_step)), draw(st.integers(0, 10_000)))
             for _ in range(draw(st.integers(6, 28)))]
    return nodes, text, steps


@st.composite
def switch_workloads(draw, two_node: bool):
    """(nodes, sims, config text, per_event) for a planner memo's on/off replays."""
    nodes, sims = nodes_and_jobs(draw, two_node=two_node)
    text = kept_text(draw, ["XFACTORWEIGHT 100\n", "PROCWEIGHT 50\n"])
    return nodes, sims, text, draw(st.booleans())


def assert_replays_alike(replay, w, monkeypatch) -> None:
    """`replay(nodes, sims, text, per_event, on, monkeypatch)` (kept_view's records and
    cycles) the same with the switch on and off."""
    nodes, sims, text, per_event = w
    fast = replay(nodes, sims, text, per_event, True, monkeypatch)
    definition = replay(nodes, sims, text, per_event, False, monkeypatch)
    assert fast[1] == definition[1]
    assert fast[0] == definition[0]


def switch_replay(module, name: str):
    """An `assert_replays_alike` replay that sets `module.name` to on or off, then replays
    with the table checked, comparing kept_view."""
    def replay(nodes, sims, text, per_event, on: bool, monkeypatch) -> tuple[list, dict]:
        monkeypatch.setattr(module, name, on)
        return replay_cycles(nodes, sims, text, per_event, kept_view)
    return replay


def assert_used_and_alike(replay, w, cls, method: str, monkeypatch,
                          called: bool = False) -> None:
    """As assert_replays_alike, and with the switch on `cls.method` answered true (or, if
    `called`, was called) at least once: the shortcut was used."""
    answered = []
    real = getattr(cls, method)

    def counted(self, *a):
        got = real(self, *a)
        answered.append(True if called else got)
        return got
    monkeypatch.setattr(cls, method, counted)
    nodes, sims, text, per_event = w
    fast = replay(nodes, sims, text, per_event, True, monkeypatch)
    assert any(answered)
    assert fast == replay(nodes, sims, text, per_event, False, monkeypatch)


def memory_queue() -> tuple[tuple, list, str]:
    """(nodes, sims, config text): one node whose memory a running job mostly takes; eight
    queued jobs of one request (3 GB) behind a wide one that reserves, and a small one
    last. A backfill pass that passes over a failed request's later jobs asks the 3 GB
    request once and starts the small job before the 3 GB ones."""
    nodes = (Node("n0", Resources.of(4, mem=4096)),)
    big = JobRequest(tasks=1, per_task=Resources.of(1, mem=3000))
    sims = [SimJob(Job("run", "u0", JobRequest(tasks=1, per_task=Resources.of(1, mem=2000)),
                       1000, 0), 1000)]
    sims.append(SimJob(Job("wide", "u1", JobRequest(tasks=4, per_task=Resources.of(1)), 500, 1),
                       500))
    sims += [SimJob(Job(f"b{k}", "u2", big, 300, 2), 300) for k in range(8)]
    sims.append(SimJob(Job("small", "u2", JobRequest(tasks=1, per_task=Resources.of(1, mem=100)),
                           100, 2), 100))
    return nodes, sims, "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n"


def tpn_arrivals(spread: bool):
    """An on_off.replay_on_off arrivals function: one to three node-table jobs, memory per
    task, most tasks per node (one or two per node) on two nodes, or on 1-4 if `spread`;
    some one to four tasks anywhere."""
    def arrivals(k: int, pick: int, now: int) -> dict[str, Job]:
        out = {}
        for b in range(1 + pick % 3):
            per = PER_TASK[(pick >> b) % 4]
            tpn = (pick >> (b + 2)) % 3
            n = 1 + (pick >> (b + 4)) % 4 if spread else 2
            req = (JobRequest(tasks=tpn * n, per_task=per, nodes=n, tasks_per_node=tpn)
                   if tpn else JobRequest(tasks=1 + (pick >> b) % 4, per_task=per))
            out[f"j{k}_{b}"] = Job(f"j{k}_{b}", f"u{(pick >> b) % 3}", req, 60 + pick % 900, now)
        return out
    return arrivals
