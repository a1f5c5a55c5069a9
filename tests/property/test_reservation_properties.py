"""No job without access ever overlaps a reservation (issue 9)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob


@st.composite
def scenario(draw):
    n = draw(st.integers(2, 8))
    procs = draw(st.sampled_from([1, 2, 4]))
    nodes = tuple(Node(f"n{i}", Resources.of(procs)) for i in range(n))
    lines = []
    for k in range(draw(st.integers(1, 2))):
        hosts = draw(st.sets(st.sampled_from([x.name for x in nodes]), min_size=1, max_size=n))
        users = draw(st.sets(st.sampled_from(["u0", "u1", "u2"]), max_size=2))
        classes = draw(st.sets(st.sampled_from(["c0", "c1"]), max_size=1))
        acl = (f" USERLIST={','.join(sorted(users))}" if users else "") + \
              (f" CLASSLIST={','.join(sorted(classes))}" if classes else "")
        if draw(st.booleans()):
            when = "PERIOD=INFINITY"
        else:
            start = draw(st.integers(0, 1500))
            when = f"PERIOD=DAY STARTTIME={start} ENDTIME={start + draw(st.integers(60, 2000))}"
        lines.append(f"SRCFG[r{k}] {when} HOSTLIST={','.join(sorted(hosts))}{acl} "
                     f"ACCESS={draw(st.sampled_from(['DEDICATED', 'SHARED']))}")
    jobs = []
    for k in range(draw(st.integers(3, 18))):
        jobs.append(Job(f"j{k:02d}", draw(st.sampled_from(["u0", "u1", "u2", "u3"])),
                        JobRequest(tasks=draw(st.integers(1, n * procs)), per_task=Resources.of(1)),
                        draw(st.integers(10, 600)), draw(st.integers(0, 2500)),
                        class_=draw(st.sampled_from(["c0", "c1", "c2"]))))
    cfg = "\n".join(lines) + "\nRESERVATIONDEPTH 2\nDEFERTIME 300\n"
    return nodes, jobs, cfg


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenario())
def test_no_job_without_access_overlaps_a_reservation(sc):
    nodes, jobs, text = sc
    seen = {}

    def note(t, result):
        for r in result.held:
            if r.kind.value == "Standing":
                seen[r.name] = r
    res = Simulation(nodes, [SimJob(j, j.wallclock) for j in jobs],
                     parse_config("TIMEZONE UTC\n" + text),
                     SimOptions(check_table=True, on_cycle=note)).run()
    assert res.check.ok, res.check.violations
    for rec in res.records.values():
        if rec.start is None:
            continue
        for r in seen.values():
            if rec.start < r.end and r.start < rec.end and set(r.nodes) & set(rec.nodes):
                assert r.acl.admits(rec.job), (rec.job.id, r.name, text)
