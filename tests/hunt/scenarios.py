"""The bug hunt's scenarios (tests/hunt/all_switches.py) as plain data (lists, ints and
strings, so a shrunk one is saved as JSON under tests/hunt/cases/ and replayed from there),
the hypothesis strategies that draw them, and `build`, which makes the simulator's nodes,
jobs and configuration of one.

A scenario is a dict:
  nodes  [name, procs, mem, gpus, has feature "ib", node priority, down, partition ("":
         every class)] per node: a few kinds with memory and GPUs (the node table), or
         identical one-processor nodes (the count planner);
  jobs   [id, user, group, account, qos, submit, wallclock, runtime, tasks, procs per task,
         mem per task, gpus per task, nodes, tasks per node, exclusive, wants "ib", class]
         per job (runtime above the wallclock: killed at it);
  cfg    the maui.cfg text;
  sim    {"poll": poll interval, "per_event": bool, "scratch": bool} (scratch: the
         definition side drops every cache before each cycle, as a state read from the
         store has none).
"""

from __future__ import annotations

from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Node, NodeState, Resources
from maui_py.sim.swf import SimJob

KINDS = ((4, 4096, 0), (8, 16384, 0), (4, 8192, 2), (2, 2048, 0))
"""(procs, mem MB, GPUs) of the node table's kinds."""
PER_TASK = ((1, 512, 0), (1, 3000, 0), (2, 1024, 0), (4, 1024, 0), (1, 0, 1), (1, 0, 0))
"""(procs, mem MB, GPUs) per task of the node table's jobs."""
USERS, GROUPS, ACCOUNTS = ("u0", "u1", "u2", "u3"), ("g0", "g1"), ("a0", "a1")
QOS = ("", "", "hi", "long")

FS_LINES = (
    "USERCFG[u0] FSTARGET=40\nUSERCFG[u1] FSTARGET=20-\nUSERCFG[DEFAULT] FSTARGET=10+\n",
    "USERCFG[u0] FSTARGET=30\nGROUPCFG[g1] FSTARGET=60\nFSGROUPWEIGHT 5\n",
    "ACCOUNTCFG[a0] FSTARGET=70\nACCOUNTCFG[a1] FSTARGET=30\nFSACCOUNTWEIGHT 20\n",
    "USERCFG[u2] FSTARGET=25%\nGROUPCFG[g0] FSTARGET=20000^\nUSERCFG[u0] FSTARGET=50\n",
    "USERCFG[DEFAULT] FSTARGET=25\nFSCAP 500\n",
)
"""Fair-share targets (and a cap on usage, by percent or absolute, in two of them)."""
LIMIT_LINES = (
    "USERCFG[u0] MAXJOB=1,2 MAXPROC=3\nUSERCFG[DEFAULT] MAXPROC=2,5\n",
    "GROUPCFG[g1] MAXJOB=2,3\nUSERCFG[u1] MAXPROC=4\n",
    "USERCFG[DEFAULT] MAXJOB=1,3\n",
    "GROUPCFG[g0] MAXPROC=4,8\nGROUPCFG[g1] MAXJOB=1\n",
    "USERCFG[u2] MAXJOB=1\nGROUPCFG[DEFAULT] MAXPROC=6\n",
)
"""Throttling limits on users and groups (soft,hard where two)."""
QOS_LINES = (
    "QOSWEIGHT 1\nQOSCFG[hi] PRIORITY=200\nQOSCFG[long] PRIORITY=-50\n",
    "QOSWEIGHT 1\nQOSCFG[hi] PRIORITY=100 MAXJOB=2\nQOSCFG[long] MAXJOB=1 QFLAGS=NOBF\n",
    "QOSCFG[long] OMAXJOB=2\nQOSCFG[hi] PRIORITY=50\nQOSWEIGHT 2\n",
    "QOSCFG[long] MAXJOB=2 PRIORITY=-100\nQOSWEIGHT 1\nQOSCFG[hi] XFWEIGHT=50\n",
)
"""QOS priorities, limits, overrides and flags."""
EXTRA_LINES = ("", "", "", "BFPRIORITYPOLICY DURATION\n",
               "PREDICTIONPOLICY USERAVERAGE\nPREDICTIONHISTORY 1\n",
               "PREDICTIONPOLICY USERAVERAGE\nPREDICTIONCORRECTION INCREMENT\n",
               "BYPASSWEIGHT 50\n", "PROCWEIGHT 3\nSERVICEWEIGHT 2\n",
               "RESERVATIONRETRYTIME 30\n", "DEFERSTARTCOUNT 2\n")
"""Whatever else a site sets, one of these (or nothing) per scenario."""

_PARTITION = st.sampled_from(["", "", "batch", "debug"])
_CLASS = st.sampled_from(["", "", "", "batch", "debug"])
_WALLCLOCK = st.one_of(st.integers(10, 900), st.integers(1, 30))
_ONE_IN = {k: st.integers(0, k - 1) for k in (2, 3, 4, 5, 6, 8, 10)}


def one_in(draw, k: int) -> bool:
    """True with probability 1/k (shrinks to False)."""
    return draw(_ONE_IN[k]) == k - 1


@st.composite
def clusters(draw, deep: bool = False, planner: str = "") -> list[list]:
    """2-8 nodes of the kinds (a third of the draws: 2-10 identical one-processor nodes,
    the count planner's), some with the feature, a node priority, rarely one down, in a
    quarter of the draws partitions (batch, debug: the classes they serve);
    `planner` "count" or "table": only those."""
    if planner == "count" or (planner != "table" and one_in(draw, 3)):
        n = draw(st.integers(2, 12 if deep else 10))
        return [[f"n{i}", 1, 0, 0, 0, 0, 0] for i in range(n)]
    n = draw(st.integers(2, 10 if deep else 8))
    classes = one_in(draw, 4)
    out = []
    for i in range(n):
        procs, mem, gpus = KINDS[draw(st.integers(0, len(KINDS) - 1))]
        out.append([f"n{i}", procs, mem, gpus, int(draw(st.booleans())), draw(st.integers(0, 3)),
                    int(i > 0 and one_in(draw, 10)),
                    draw(_PARTITION) if classes else ""])
    return out


def _request(draw, nodes: list[list]) -> list[int]:
    """[tasks, procs, mem, gpus per task, nodes, tasks per node, exclusive, feature]:
    plain tasks on the count planner's nodes, else tasks per node, a node count, or
    tasks anywhere, one in eight exclusive, one in five wanting the feature."""
    n = len(nodes)
    if all(nd[1] == 1 and not nd[2] for nd in nodes):
        return [draw(st.integers(1, n + (1 if one_in(draw, 10) else 0))), 1, 0, 0, 0, 0, 0, 0]
    procs, mem, gpus = PER_TASK[draw(st.integers(0, len(PER_TASK) - 1))]
    excl, feat = int(one_in(draw, 8)), int(one_in(draw, 5))
    shape = draw(st.integers(0, 3))
    if shape == 0:                          # tasks per node on some nodes
        tpn, k = draw(st.integers(1, 2)), draw(st.integers(1, n))
        return [tpn * k, procs, mem, gpus, k, tpn, excl, feat]
    if shape == 1:                          # a node count
        k = draw(st.integers(1, min(3, n)))
        return [draw(st.integers(k, 2 * k + 2)), procs, mem, gpus, k, 0, excl, feat]
    return [draw(st.integers(1, 12)), procs, mem, gpus, 0, 0, excl, feat]


@st.composite
def workloads(draw, nodes: list[list], deep: bool = False) -> list[list]:
    """3-30 jobs (3-60 with `deep`, arriving in bursts) of four users, two groups, two
    accounts and three QOS; runtimes at, below (0 too) or (killed) above the wallclock."""
    jobs, t = [], 0
    classes = any(nd[7:] and nd[7] for nd in nodes)
    gaps = [0, 0, 0, 1, 5, 10, 30, 120, 600] if deep else [0, 0, 1, 5, 10, 30, 120, 600]
    for k in range(draw(st.integers(3, 60 if deep else 30))):
        t += draw(st.sampled_from(gaps))
        wc = draw(_WALLCLOCK)
        run = draw(st.sampled_from([wc, draw(st.integers(0, wc)), wc + draw(st.integers(1, 60))]))
        u = draw(st.integers(0, len(USERS) - 1))
        group = GROUPS[u % 2] if draw(st.integers(0, 3)) else GROUPS[1 - u % 2]
        jobs.append([f"j{k:02d}", USERS[u], group, ACCOUNTS[draw(st.integers(0, 1))],
                     QOS[draw(st.integers(0, len(QOS) - 1))], t, wc, run]
                    + _request(draw, nodes) + [draw(_CLASS) if classes else ""])
    return jobs


def _fair_share(draw) -> str:
    policy = draw(st.sampled_from(["DEDICATEDPS", "DEDICATEDPES", "UTILIZEDPS", "DEDICATEDPS%"]))
    return (f"FSPOLICY {policy}\nFSWEIGHT {draw(st.sampled_from([1, 10]))}\nFSUSERWEIGHT 10\n"
            f"FSINTERVAL {draw(st.sampled_from([60, 300, 3600]))}\n"
            f"FSDEPTH {draw(st.integers(1, 4))}\nFSDECAY {draw(st.sampled_from(['0.5', '1.0']))}\n"
            + draw(st.sampled_from(FS_LINES)))


@st.composite
def configs(draw, counting: bool) -> str:
    """A maui.cfg: reservation policy and depth, backfill and node allocation policy,
    queue-time and expansion-factor weights, and, each in some draws, a job size limit,
    deferral, fair share, user and group limits, QOS, MAUICOMPAT 3.3 and one extra."""
    text = (f"RESERVATIONPOLICY {draw(st.sampled_from(['CURRENTHIGHEST', 'HIGHEST', 'NEVER']))}\n"
            f"RESERVATIONDEPTH {draw(st.one_of(st.integers(0, 4), st.integers(0, 20)))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'BESTFIT', 'GREEDY', 'NONE']))}\n"
            "NODEALLOCATIONPOLICY "
            + draw(st.sampled_from(['LASTAVAILABLE', 'FIRSTAVAILABLE', 'MINRESOURCE',
                                    'PRIORITY', 'CPULOAD'])) + "\n"
            f"QUEUETIMEWEIGHT {draw(st.sampled_from([1, 1, 0, 5, -1]))}\n"
            f"DEFERTIME {draw(st.sampled_from([30, 60, 300]))}\n"
            f"DEFERCOUNT {draw(st.integers(1, 4))}\n")
    if one_in(draw, 3):
        text += f"XFACTORWEIGHT {draw(st.sampled_from([1, 10, 100]))}\n"
        if one_in(draw, 3):
            text += "XFACTORCAP 5\n"
    if one_in(draw, 6):
        text += f"SYSTEMMAXPROCPERJOB {draw(st.integers(1, 8))}\n"
    if one_in(draw, 3):
        text += _fair_share(draw)
    if one_in(draw, 3):
        text += draw(st.sampled_from(LIMIT_LINES))
    if one_in(draw, 3):
        text += draw(st.sampled_from(QOS_LINES))
    if one_in(draw, 10):
        text += "MAUICOMPAT 3.3\n"
    return text + draw(st.sampled_from(EXTRA_LINES))


@st.composite
def scenarios(draw, deep: bool = False, planner: str = "") -> dict:
    """A whole scenario (see the module docstring); `planner` as clusters takes it."""
    nodes = draw(clusters(deep, planner))
    jobs = draw(workloads(nodes, deep))
    counting = all(nd[1] == 1 and not nd[2] for nd in nodes)
    cfg = draw(configs(counting))
    sim = {"poll": draw(st.sampled_from([0, 0, 0, 7, 60])), "per_event": one_in(draw, 5),
           "scratch": one_in(draw, 4)}
    return {"nodes": nodes, "jobs": jobs, "cfg": cfg, "sim": sim}


def build(sc: dict) -> tuple[tuple[Node, ...], list[SimJob], object]:
    """The scenario's nodes, jobs (with their runtimes) and parsed configuration."""
    nodes = tuple(Node(name, Resources.of(procs, mem, gpu=gpus) if gpus else Resources.of(procs, mem),
                       state=NodeState.DOWN if down else NodeState.IDLE,
                       features=frozenset({"ib"}) if feat else frozenset(), priority=prio,
                       partitions=frozenset(part[:1]) if part and part[0] else frozenset())
                  for name, procs, mem, gpus, feat, prio, down, *part in sc["nodes"])
    sims = []
    for (jid, user, group, account, qos, submit, wc, run,
         tasks, procs, mem, gpus, n, tpn, excl, feat, *cls) in sc["jobs"]:
        per = Resources.of(procs, mem, gpu=gpus) if gpus else Resources.of(procs, mem)
        req = JobRequest(tasks=tasks, per_task=per, nodes=n, tasks_per_node=tpn,
                         exclusive=bool(excl),
                         features=frozenset({"ib"}) if feat else frozenset())
        sims.append(SimJob(Job(jid, user, req, wc, submit, group=group, account=account,
                               qos=qos, class_=cls[0] if cls else ""), run))
    return nodes, sims, parse_config(sc["cfg"])
