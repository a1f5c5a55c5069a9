"""The scan's gres filter on the nodes that free something (Scanning.use_gres_gain,
planning/scan.py) against the scan that counts every such node (use_gres_gain False, the
definition).

On random clusters with GPU nodes whose GPUs are all taken by jobs that end late while
jobs without GPUs end on them one after another (the nodes free processors with no GPU
free: the candidates the filter passes over), every earliest-start answer of a request
that asks GPUs on each task (open, bounded by `until`, from the origin or `after`), under
each NODEALLOCATIONPOLICY, with the gain bound on and off, is the same placement (start,
nodes, amounts) either way, and the table's invariants hold after every mutation
(table._check). Floors are cleared before each answer (both_ways.answer)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from maui_py.model import JobRequest, Node, Resources
from maui_py.planning.table import ReservationTable

from .both_ways import GPUS, POLICIES, answer, assert_same, come_and_go
from .strategies import clusters, requests
from .test_table_properties import SETTINGS


def _gpus_taken(draw, table: ReservationTable) -> None:
    """On each GPU node most of the time: every GPU taken (by one or a few jobs) until a
    late end, or else often all of them for a while later on, and jobs without GPUs on its
    processors ending one after another; on the other nodes jobs without GPUs ending at
    their own times."""
    for i, nd in enumerate(table.nodes):
        if not nd.state.usable or draw(st.integers(0, 4)) == 0:
            continue
        cap = nd.resources
        gpus = dict(cap.gres).get("gpu", 0)
        procs = max(cap.procs, 1)
        used = 0
        if gpus and draw(st.integers(0, 3)):
            end = table.origin + draw(st.integers(200, 900))
            take = draw(st.integers(1, gpus))
            table.reserve(f"g{i}", table.origin - 5, end, [(nd.name, Resources.of(1, 0, gpu=take))],
                          force=True)
            used = 1
            if take < gpus:
                table.reserve(f"h{i}", table.origin - 5, end + draw(st.integers(-150, 150)),
                              [(nd.name, Resources.of(0, 0, gpu=gpus - take))], force=True)
        if gpus and not used and draw(st.integers(0, 1)):     # all taken for a while later
            s = table.origin + draw(st.integers(1, 300))
            table.reserve(f"f{i}", s, s + draw(st.integers(1, 200)),
                          [(nd.name, Resources.of(0, 0, gpu=gpus))], force=True)
        for k in range(draw(st.integers(0, 3))):
            if used >= procs:
                break
            n = draw(st.integers(1, procs - used))
            used += n
            end = table.origin + draw(st.integers(1, 400))
            table.reserve(f"c{i}.{k}", table.origin - 5, end, [(nd.name, Resources.of(n))],
                          force=True)


def _same(table: ReservationTable, data) -> None:
    """One question of a request asking GPUs on each task, asked both ways."""
    req = data.draw(requests(table.nodes, GPUS))
    gpu = data.draw(st.integers(1, 2))
    req = replace(req, per_task=Resources.of(req.per_task.procs, req.per_task.mem, gpu=gpu))
    w = data.draw(st.integers(1, 600))
    after = table.origin + data.draw(st.sampled_from([0, 0, 0, 40, 250]))
    until = data.draw(st.sampled_from([None, None, None, table.origin, after + 300]))
    policy = data.draw(st.sampled_from(POLICIES))
    job_class = data.draw(st.sampled_from(["", "", "batch"]))
    ask = (req, w, after, until, policy, job_class)
    gain = data.draw(st.booleans())
    assert_same(answer(table, {"use_gres_gain": True, "use_gain": gain}, *ask),
                answer(table, {"use_gres_gain": False, "use_gain": gain}, *ask))


@SETTINGS
@given(st.data())
def test_answers_with_the_gres_filter_equal_every_freeing_node_counted(data):
    table = ReservationTable(data.draw(clusters(gpus=(0, 2, 4, 4))), origin=1000)
    _gpus_taken(data.draw, table)
    if data.draw(st.booleans()):
        table.advance(1000 + data.draw(st.integers(1, 100)))
    table._check()
    for _ in range(data.draw(st.integers(1, 6))):
        _same(table, data)


@SETTINGS
@given(st.data())
def test_answers_stay_equal_as_holds_come_and_go(data):
    table = ReservationTable(data.draw(clusters(gpus=(0, 2, 4, 4))), origin=1000)
    _gpus_taken(data.draw, table)
    table._check()
    come_and_go(data, table, 16, ["reserve", "reserve", "release", "advance", "ask", "ask"],
                100, lambda t: _same(t, data))


def test_the_filter_passes_over_processors_freed_where_the_gpus_stay_taken():
    """Two GPU nodes with every GPU taken until 900 and one-processor jobs ending on them
    every 10 s: a one-GPU job first fits at 900. Counting every freeing node evaluates the
    candidates at 10, 20, ...; the filter passes them over, and the answer is the same."""
    nodes = [Node(f"g{k}", Resources.of(8, 0, gpu=2)) for k in range(2)]
    answers, passed = [], []
    for on in (True, False):
        table = ReservationTable(nodes, origin=0)
        for k, nd in enumerate(nodes):
            table.reserve(f"gpu{k}", 0, 900, [(nd.name, Resources.of(1, 0, gpu=2))], force=True)
            for m in range(1, 7):
                table.reserve(f"c{k}.{m}", 0, 10 * (2 * m + k),
                              [(nd.name, Resources.of(1))], force=True)
        table._check()
        table.use_gres_gain = on
        table.gres_passed = 0
        p = table.earliest_start(JobRequest(tasks=1, per_task=Resources.of(1, 0, gpu=1)), 50,
                                 policy="FIRSTAVAILABLE")
        answers.append((p.start, p.allocation))
        passed.append(table.gres_passed)
    assert answers[0] == answers[1] and answers[0][0] == 900
    assert passed[0] >= 10 and passed[1] == 0


def test_a_node_whose_gpus_were_taken_only_in_the_last_window_is_counted():
    """One node of 2 GPUs: both taken over [0, 100) and again over [150, 200). A one-GPU
    job of 100 s fails at 100 (the window meets 150) and first fits at 200, where the node
    frees its GPUs: the filter reads the GPUs taken at 200 (none), not those of the window
    last evaluated (which held the node), and the answer is 200 either way."""
    node = Node("g0", Resources.of(4, 0, gpu=2))
    starts = []
    for on in (True, False):
        table = ReservationTable([node], origin=0)
        table.reserve("a", 0, 100, [("g0", Resources.of(1, 0, gpu=2))], force=True)
        table.reserve("b", 150, 200, [("g0", Resources.of(0, 0, gpu=2))])
        table._check()
        table.use_gres_gain = on
        p = table.earliest_start(JobRequest(tasks=1, per_task=Resources.of(1, 0, gpu=1)), 100,
                                 policy="FIRSTAVAILABLE")
        starts.append(p.start if p else None)
    assert starts == [200, 200]
