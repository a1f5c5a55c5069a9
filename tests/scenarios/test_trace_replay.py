"""A real trace replayed end to end reproduces the published EASY figures (issue 5)."""

from maui_py.cfg import parse_config
from maui_py.sim.cluster import from_trace_header
from maui_py.sim.engine import Simulation
from maui_py.sim.metrics import summarize
from maui_py.sim.swf import clean, read_swf, to_sim_jobs

from ..traces import trace_path

# Gaussier et al., SC'15: FCFS, EASY, estimates = requested times raised to the recorded
# runtime where a job ran past its request, as their simulator (pyss) did: docs/simulator.md
PUBLISHED_BSLD_KTH = 92.58
FCFS_EASY = "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n"


def test_kth_sp2_easy_bounded_slowdown_matches_the_published_figure():
    header, records = read_swf(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"))
    kept, report = clean(records, header.max_procs, estimates="max")
    assert header.max_procs == 100 and report.kept == len(kept) > 28_000
    jobs = to_sim_jobs(kept)
    nodes = from_trace_header(header)
    result = Simulation(nodes, jobs, parse_config(FCFS_EASY)).run()
    # the simulated resource manager checked every start on its own books
    assert result.check.starts_checked == len(jobs) and result.check.ok
    assert not result.unfinished
    assert all(r.start >= r.job.submit_time and r.end == r.start + r.runtime
               for r in result.records.values())
    s = summarize(result.records, len(nodes)).total
    assert abs(s.bsld_mean - PUBLISHED_BSLD_KTH) / PUBLISHED_BSLD_KTH < 0.02, s.bsld_mean
    assert abs(s.utilization - 0.699) < 0.005
