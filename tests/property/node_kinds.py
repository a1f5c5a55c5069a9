"""Shared strategies for replays on the node table: a few node kinds (memory, GPUs, a
feature) and jobs of tasks-per-node, two-node, whole-node and "any" requests that mostly
end before their limit, arriving in bursts (test_carried_failures, test_inplace)."""

from __future__ import annotations

from hypothesis import strategies as st

from maui_py.model import Job, JobRequest, Node, Resources
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


def nodes_and_jobs(draw, two_node: bool) -> tuple[tuple[Node, ...], list[SimJob]]:
    """2-7 nodes of the kinds above, some with the feature, and 3-30 jobs of three users."""
    n = draw(st.integers(2, 7))
    nodes = tuple(Node(f"n{i}", KINDS[draw(st.integers(0, 2))],
                       features=frozenset({"ib"}) if draw(st.booleans()) else frozenset())
                  for i in range(n))
    sims, t = [], 0
    for k in range(draw(st.integers(3, 30))):
        t += draw(st.sampled_from([0, 0, 1, 5, 10, 30, 120]))
        wc = draw(st.integers(10, 500))
        run = draw(st.sampled_from([wc, draw(st.integers(1, wc))]))
        sims.append(SimJob(Job(f"j{k:02d}", f"u{k % 3}", request(draw, n, two_node), wc, t), run))
    return nodes, sims
