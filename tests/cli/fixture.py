"""A fixed cluster state written to a store, as mauid would leave it, for the command tests.

Two cycles (an hour apart, so that fair share has usage to show) over five nodes: r1 and r2
run, i2 is started by the last cycle (Starting), the wide job i1 (setspri 5) and i3 hold
priority reservations, i4 waits without one, h1 is user-held, b1 batch-held by maui-py, d1
waits on a dependency, and an
admin reservation `maint.0` holds n04 for an hour from T + 2 h. Times are fixed (T) and the
tests run with TZ=UTC, so every date and duration in the golden files is stable.
"""

from __future__ import annotations

from pathlib import Path

from maui_py.cfg import load_config
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.daemon import admin
from maui_py.model import (Acl, ClusterSnapshot, HoldType, Job, JobRequest, JobState, Node, NodeState,
                           Reservation, ReservationKind, Resources)
from maui_py.store import Store
from maui_py.store.journal import capture, cycle_entries

T = 1_700_000_000          # Tue Nov 14 22:13:20 2023 UTC
CONFIG = """\
RMCFG[fake]        TYPE=SLURM
RESERVATIONDEPTH   2
BACKFILLPOLICY     FIRSTFIT
ADMIN1             root ops
CREDWEIGHT         1
USERWEIGHT         10
QUEUETIMEWEIGHT    1
XFACTORWEIGHT      100
FSPOLICY           DEDICATEDPS
FSWEIGHT           1
FSUSERWEIGHT       10
FSINTERVAL         1:00:00
FSDEPTH            4
FSDECAY            0.50
USERCFG[alice]     PRIORITY=100 FSTARGET=40
USERCFG[bob]       FSTARGET=30-
GROUPCFG[staff]    FSTARGET=50
"""

NODES = tuple(Node(f"n0{i}", Resources.of(8, 16000), features=frozenset({"fast"} if i < 3 else {"slow"}))
              for i in range(1, 5)) + (Node("n05", Resources.of(8, 16000), NodeState.DOWN),)


def _job(jid, user, procs, wallclock, submit, group="staff", **kw) -> Job:
    return Job(jid, user, JobRequest(procs), wallclock, submit, group=group, account="proj",
               class_="batch", **kw)


def _running(jid, user, nodes, wallclock, start, submit) -> Job:
    alloc = tuple((n, Resources.of(8)) for n in nodes)
    return _job(jid, user, 8 * len(nodes), wallclock, submit, state=JobState.RUNNING,
                start_time=start, allocation=alloc)


def jobs(now: int) -> tuple[Job, ...]:
    return (
        _running("r1", "alice", ("n01", "n02"), 7200, T - 3600, T - 4000),
        _running("r2", "bob", ("n03",), 2 * 86400, T - 600, T - 900),
        _job("i1", "carol", 24, 3600, T - 1800, group="physics"),
        _job("i2", "alice", 4, 1800, T - 1200),
        _job("i3", "dave", 8, 7200, T - 1000, qos="high"),
        _job("h1", "erin", 2, 600, T - 500, holds=frozenset({HoldType.USER})),
        _job("b1", "bob", 1, 300, T - 400),
        _job("d1", "carol", 2, 900, T - 300, group="physics", depends_satisfied=False),
        _job("i4", "alice", 8, 3600, T - 100),
    )


MAINT = Reservation("maint.0", ReservationKind.USER, T + 7200, T + 10800, hosts=("n04",),
                    acl=Acl(users=frozenset({"frank"})), owner="root")


def write_store(home: Path) -> Path:
    """maui.cfg and maui-py.db in `home`, as after mauid's second cycle at T."""
    cfg_path = home / "maui.cfg"
    cfg_path.write_text(CONFIG)
    cfg = load_config(cfg_path)
    store = Store.open(home / "maui-py.db", clock=lambda: float(T + 1))
    state = SchedulerState()
    admin_res = {MAINT.name: (MAINT, "root", float(T - 60))}
    for now in (T - 3600, T):
        snap = ClusterSnapshot(now, NODES, jobs(now) if now == T else jobs(now)[:1], seq=now)
        if now == T:
            state.batch_holds["b1"] = "set by root with sethold -b"
            state.system_priority["i1"] = 5
        ctx = admin.AdminContext(cfg, state, snap, dict(admin_res), float(now))
        snap = admin.with_admin_reservations(ctx)
        before = capture(state)
        result = run_cycle(snap, cfg, state)
        state = result.state
        store.save_cycle(result, snap, journal=cycle_entries(before, result, snap),
                         admin_reservations=ctx.admin_reservations,
                         info={"config_path": str(cfg_path), "rm": "fake", "pid": 0, "host": "test"})
    store.close(rollback_mode=True)
    return home / "maui-py.db"
