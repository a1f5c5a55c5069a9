"""RESERVATIONPOLICY HIGHEST: a kept reservation never starts later while its resources stay
up, it is kept until its job starts, and after every cycle it is at its earliest start with
the other reservations held (policy/highest.py; Maui's MQueueScheduleRJobs)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.planning import owners
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

SETTINGS = settings(max_examples=60 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def workloads(draw):
    n = draw(st.integers(2, 6))
    procs = draw(st.sampled_from([1, 2, 4]))
    mixed = draw(st.booleans())
    nodes = tuple(Node(f"n{i}", Resources.of(procs * (2 if mixed and i == 0 else 1)))
                  for i in range(n))
    total = sum(x.resources.procs for x in nodes)
    jobs, t = [], 0
    for k in range(draw(st.integers(3, 22))):
        t += draw(st.integers(0, 120))
        wc = draw(st.integers(10, 600))
        run = draw(st.integers(1, wc))
        jobs.append(SimJob(Job(f"j{k:02d}", f"u{k % 3}",
                               JobRequest(tasks=draw(st.integers(1, total))), wc, t), run))
    text = ("RESERVATIONPOLICY HIGHEST\nBACKFILLPOLICY FIRSTFIT\n"
            f"RESERVATIONDEPTH {draw(st.sampled_from([1, 2, 100]))}\n"
            f"NODEALLOCATIONPOLICY {draw(st.sampled_from(['LASTAVAILABLE', 'FIRSTAVAILABLE', 'MINRESOURCE']))}\n"
            + draw(st.sampled_from(["QUEUETIMEWEIGHT 1\n", "QUEUETIMEWEIGHT 1\nXFACTORWEIGHT 100\n",
                                    "QUEUETIMEWEIGHT 1\nPROCWEIGHT 50\n"])))
    return nodes, jobs, text


@SETTINGS
@given(workloads())
def test_a_highest_reservation_never_moves_later_and_is_kept_until_its_job_starts(w):
    nodes, jobs, text = w
    cfg = parse_config(text)
    seen: dict[str, int] = {}           # job id -> its reservation's start at the last cycle
    ended: set[str] = set()

    def check(now, result):
        st = result.state
        started = {d.job_id for d in result.starts()}
        for jid, start in seen.items():
            if jid in ended:
                continue
            kr = st.reservations.get(jid)
            if kr is None:
                assert jid in started, f"{jid}: reservation dropped at {now} before its start"
                ended.add(jid)
            else:
                assert kr.start <= start, f"{jid}: moved later at {now}: {start} -> {kr.start}"
        table = st.caches.plan.table
        for jid, kr in st.reservations.items():
            seen[jid] = kr.start
            job = by_id[jid]
            p = table.earliest_start(job.request, job.wallclock, now, policy=nap,
                                     ignore=(owners.priority(jid),))
            assert p and p.start >= kr.start, \
                f"{jid} could start at {p.start}, before its reservation at {kr.start} ({now})"

    by_id = {s.job.id: s.job for s in jobs}
    nap = cfg.get("NODEALLOCATIONPOLICY")
    res = Simulation(nodes, jobs, cfg, SimOptions(check_table=True, on_cycle=check)).run()
    assert res.check.ok, res.check.violations
    assert all(r.start is not None for r in res.records.values())

