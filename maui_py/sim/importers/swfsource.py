"""An SWF trace as a Workload, so `maui-sim whatif` takes public traces as well as site logs.

The standard cleaning (maui_py.sim.swf.clean) is applied; users and groups become `user<N>`
and `group<N>` as in the plain replay, queues `queue<N>`, unless the header's notes name them
(maui_py.sim.swfnames: a log `maui-sim convert` wrote); SWF has no QOS.
"""

from __future__ import annotations

from pathlib import Path

from ..cluster import from_trace_header
from ..swf import clean, read_swf, unique_ids
from ..swfnames import header_names
from ..timefmt import clock_from_header
from .workload import Workload, WorkloadJob


def read_swf_workload(path: str | Path) -> Workload:
    header, records = read_swf(path)
    records = unique_ids(records)           # a repeated job id: warned about, renumbered
    machine = header.max_procs or header.max_nodes or max((r.procs for r in records), default=1)
    kept, report = clean(records, machine)
    t0 = header.unix_start_time or 0
    names = header_names(header)

    def named(kind: str, num: int, numbered: str) -> str:
        return names.get(kind, {}).get(num, numbered)
    jobs = [WorkloadJob(id=str(r.job_id), user=named("user", r.user, f"user{r.user}"), submit=t0 + r.submit,
                        start=t0 + r.submit + max(r.wait, 0), end=t0 + r.submit + max(r.wait, 0) + r.runtime,
                        wallclock=r.req_time, procs=r.procs,
                        mem_mb=-(-r.req_mem * r.procs // 1024) if r.req_mem > 0 else 0,
                        group=named("group", r.group, f"group{r.group}"),
                        class_=named("class_", r.queue, f"queue{r.queue}" if r.queue >= 0 else ""),
                        account=named("account", r.partition, ""),
                        state="COMPLETED")
            for r in kept]
    w = Workload(jobs, str(path), from_trace_header(header, 1, max((r.procs for r in kept), default=1)))
    clock, _warning = clock_from_header(header)
    w.dates = clock.zone_name if clock.absolute else ""
    if report.dropped:
        w.count("dropped by the standard SWF cleaning", report.dropped)
    return w
