"""Hypothesis strategies and a brute-force reference for the reservation table."""

from __future__ import annotations

from hypothesis import strategies as st

from maui_py.model import JobRequest, Node, NodeState, Resources
from maui_py.planning.table import ReservationTable

FEATURES = ("fast", "ib")

# The strategies that do not depend on a draw, built once: a strategy built afresh at each
# draw is validated and labelled again each time, which cost the table tests most of their
# time (5/6 of test_reservations_made_in_turn_... under cProfile). The same strategies, so
# the same examples for the same seed.
_PROCS = st.sampled_from([1, 2, 4, 8])
_MEMS = st.sampled_from([0, 1000, 4000])
_FEATURE_SETS = st.frozensets(st.sampled_from(FEATURES))
_PARTITIONS = st.sampled_from([frozenset(), frozenset({"batch"}), frozenset({"debug"})])
_STATES = st.sampled_from([NodeState.IDLE] * 9 + [NodeState.DOWN])
_NODE_PRIORITY = st.integers(0, 3)
_PPT = st.sampled_from([1, 1, 2, 4])
_TASK_MEM = st.sampled_from([0, 0, 250, 1000])
_TASKS = st.one_of(st.integers(1, 4), st.integers(1, 24))
_SHAPE = st.sampled_from(["any", "any", "nodes", "tpn"])
_TPN = st.integers(1, 4)
_TPN_TIMES = st.integers(1, 5)
_ONE_IN_5 = st.integers(0, 4)
_FEATURE = st.sampled_from(FEATURES)
_ONE_IN_10 = st.integers(0, 9)
_ONE_IN_8 = st.integers(0, 7)
_WALLTIME = st.integers(1, 500)
_AFTER = st.one_of(st.just(0), st.integers(0, 300))
_ONE_IN_4 = st.integers(0, 3)
_POLICY = st.sampled_from(["FIRSTAVAILABLE", "LASTAVAILABLE", "MINRESOURCE", "PRIORITY", "CPULOAD"])
_EARLIER = st.integers(0, 100)
_KIND = st.sampled_from(["job", "reservation"])
_GPU_CHOICES: dict[tuple, st.SearchStrategy] = {}


def _gpu_choice(gpus: tuple) -> st.SearchStrategy:
    """st.sampled_from(list(gpus)), built once per tuple."""
    if gpus not in _GPU_CHOICES:
        _GPU_CHOICES[gpus] = st.sampled_from(list(gpus))
    return _GPU_CHOICES[gpus]


@st.composite
def clusters(draw, min_nodes=1, max_nodes=64, gpus=(0, 0, 2)):
    n = draw(st.one_of(st.integers(min_nodes, min(max_nodes, 8)),
                       st.integers(min_nodes, max_nodes)))
    kinds = draw(st.lists(st.tuples(_PROCS, _MEMS, _gpu_choice(tuple(gpus)), _FEATURE_SETS, _PARTITIONS),
                          min_size=1, max_size=3))
    nodes = []
    for i in range(n):
        procs, mem, gpu, feats, parts = kinds[draw(st.integers(0, len(kinds) - 1))]
        state = draw(_STATES)
        nodes.append(Node(f"n{i:02d}", Resources.of(procs, mem, gpu=gpu), state=state,
                          features=feats, partitions=parts, priority=draw(_NODE_PRIORITY)))
    return nodes


@st.composite
def requests(draw, nodes, gpus=(0,) * 7 + (1,)):
    ppt = draw(_PPT)
    mem = draw(_TASK_MEM)
    gpu = draw(_gpu_choice(tuple(gpus)))
    tasks = draw(_TASKS)
    shape = draw(_SHAPE)
    nodes_n = tpn = 0
    if shape == "nodes":
        nodes_n = draw(st.integers(1, min(tasks, 6)))
    elif shape == "tpn":
        tpn = draw(_TPN)
        tasks = tpn * draw(_TPN_TIMES)
    feats = frozenset()
    if draw(_ONE_IN_5) == 0:
        feats = frozenset({draw(_FEATURE)})
    hostlist = ()
    if draw(_ONE_IN_10) == 0:
        hostlist = tuple(sorted(draw(st.sets(st.sampled_from([n.name for n in nodes]),
                                             min_size=1, max_size=6))))
    return JobRequest(tasks=tasks, per_task=Resources.of(ppt, mem, gpu=gpu), nodes=nodes_n,
                      tasks_per_node=tpn, features=feats, hostlist=hostlist,
                      exclusive=draw(_ONE_IN_8) == 0)


def populate(draw, table: ReservationTable, max_holds=30, gpus=None):
    """Random running jobs (started before the origin) and future reservations, all valid;
    `gpus`: the GPUs per task their requests draw from (default: requests')."""
    origin = table.origin
    for k in range(draw(st.integers(0, max_holds))):
        req = draw(requests(table.nodes) if gpus is None else requests(table.nodes, gpus))
        w = draw(_WALLTIME)
        ends = sorted({h.end for h in table.holds.values()})
        after = origin + draw(_AFTER)
        if ends and draw(_ONE_IN_4) == 0:
            after = draw(st.sampled_from(ends))
        p = table.earliest_start(req, w, after, policy=draw(_POLICY))
        if p:
            start = p.start
            if start == origin and draw(st.booleans()):
                start = origin - draw(_EARLIER)
            table.reserve(f"h{k}", start, p.end, p.allocation, kind=draw(_KIND))


def node_fit(table, i, req, d, t, w, exclusive):
    """Tasks node i holds over [t, t+w), from the holds directly."""
    cap = table.cap[i]
    ivs = [(max(s, table.origin), e, v) for s, e, v, _ in table.holds_on(i)]
    instants = {t} | {s for s, _, _ in ivs if t < s < t + w}
    worst = [0] * len(cap)
    for x in instants:
        use = [0] * len(cap)
        for s, e, v in ivs:
            if s <= x < e:
                use = [a + b for a, b in zip(use, v)]
        worst = [max(a, b) for a, b in zip(worst, use)]
    if exclusive and any(worst):
        return 0
    free = [c - u for c, u in zip(cap, worst)]
    best = 1 << 30
    for need, have in zip(d, free):
        if need:
            best = min(best, have // need)
    return max(best, 0)


def brute_earliest(table: ReservationTable, req: JobRequest, w: int, after: int,
                   job_class: str = ""):
    """The earliest feasible start by trying every candidate instant on every node."""
    try:
        d = table.vector(req.per_task)
    except KeyError:
        return None
    eligible = []
    for i, nd in enumerate(table.nodes):
        if not nd.state.usable or not req.features <= nd.features or not nd.serves(job_class):
            continue
        if req.hostlist and nd.name not in req.hostlist:
            continue
        eligible.append(i)
    cands = {after} | {x for i in eligible for s, e, _, _ in table.holds_on(i) for x in (s, e)
                       if x > after}
    tpn, nn = req.tasks_per_node, req.nodes
    for t in sorted(cands):
        fits = [node_fit(table, i, req, d, t, w, req.exclusive) for i in eligible]
        if tpn:
            need = max(nn, -(-req.tasks // tpn))
            ok = sum(1 for f in fits if f >= tpn) >= need
        elif nn:
            top = sorted(fits, reverse=True)[:nn]
            ok = nn <= req.tasks and len(top) == nn and min(top) >= 1 and sum(top) >= req.tasks
        else:
            ok = sum(fits) >= req.tasks
        if ok:
            return t
    return None


def assert_no_start_after_its_reservation(log, records) -> None:
    """Every job starts no later than the earliest reservation a cycle promised it. `log`:
    (time, decisions) per cycle; `records`: the replay's SimRecords by job id."""
    from maui_py.model import Reserve
    promised: dict[str, int] = {}
    for _t, decisions in log:
        for d in decisions:
            if isinstance(d, Reserve):
                promised[d.job_id] = min(promised.get(d.job_id, d.start), d.start)
    for jid, start in promised.items():
        assert records[jid].start <= start, (jid, records[jid].start, start)
