"""The importer's fits() by node class (importers/fit.py, issue 33) gives the per-node
definition's answer: a job fits when enough usable nodes have its features and each can hold
a task (with a node count), or the usable nodes with its features have room for all its
tasks (without). The definition is written out here over nodes, one by one, as the oracle."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.model import Job, JobRequest, Node, NodeState, Resources
from maui_py.sim.importers.fit import NodeClasses, fits_node_by_node
from maui_py.sim.importers.workload import fits


FEATS = st.frozensets(st.sampled_from(["ib", "fast", "gpu"]), max_size=2)
RES = st.builds(lambda p, m, g: Resources.of(p, m, {"gpu": g} if g else {}),
                st.integers(1, 8), st.sampled_from([0, 1000, 4000]), st.integers(0, 2))
NODE_KINDS = st.tuples(RES, FEATS, st.sampled_from([NodeState.IDLE, NodeState.DOWN]),
                       st.integers(1, 4))


def _cluster(kinds) -> list[Node]:
    out = []
    for res, feats, state, count in kinds:
        out += [Node(f"n{len(out) + i}", res, state, feats) for i in range(count)]
    return out


def _job(k: int, per: Resources, tasks: int, nodes: bool, feats) -> Job:
    req = (JobRequest(tasks=tasks, per_task=per, nodes=tasks, tasks_per_node=1, features=feats)
           if nodes else JobRequest(tasks=tasks, per_task=per, features=feats))
    return Job(id=str(k), user="u", request=req, wallclock=60, submit_time=0)


JOBS = st.lists(st.tuples(RES, st.integers(1, 12), st.booleans(), FEATS), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(NODE_KINDS, min_size=1, max_size=5), JOBS)
def test_classes_answer_as_the_per_node_definition(kinds, shapes):
    nodes = _cluster(kinds)
    classes = NodeClasses(nodes)
    for k, (per, tasks, with_nodes, feats) in enumerate(shapes):
        job = _job(k, per, tasks, with_nodes, feats)
        assert classes.fits(job) == fits_node_by_node(job, nodes) == fits(job, nodes)
        assert classes.fits(job) == fits_node_by_node(job, nodes)          # the cached answer too


def test_a_hand_made_cluster():
    # 3 idle nodes of 4 procs (ib), 1 down node of 8 procs: 4 one-node tasks of 4 procs do not
    # fit (3 nodes), 12 one-proc tasks without a node count do (3 x 4), 13 do not (the down
    # node does not count), 2 tasks of 8 procs fit no node.
    nodes = _cluster([(Resources.of(4), frozenset({"ib"}), NodeState.IDLE, 3),
                      (Resources.of(8), frozenset({"ib"}), NodeState.DOWN, 1)])
    classes = NodeClasses(nodes)
    assert len(classes.classes) == 1
    assert not classes.fits(_job(1, Resources.of(4), 4, True, frozenset()))
    assert classes.fits(_job(2, Resources.of(4), 3, True, frozenset({"ib"})))
    assert classes.fits(_job(3, Resources.of(1), 12, False, frozenset()))
    assert not classes.fits(_job(4, Resources.of(1), 13, False, frozenset()))
    assert not classes.fits(_job(5, Resources.of(8), 2, False, frozenset()))
    assert not classes.fits(_job(6, Resources.of(1), 1, False, frozenset({"fast"})))
