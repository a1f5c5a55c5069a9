"""advice/waits.limit_wait, as a property: on random running jobs of three users under a
per-user MAXPROC (and a per-user MAXJOB), a queued job gets a limit line exactly when its
user's running processors (jobs) plus its own cross the limit, and the line gives what the
user has in use, counted here from the running jobs."""

from hypothesis import given, strategies as st

from maui_py.advice.waits import limit_wait
from maui_py.cfg.loader import parse_config
from maui_py.model import Job, JobRequest, JobState, Resources

NOW = 50_000
USERS = ("u0", "u1", "u2")


def _running(k: int, user: str, procs: int) -> Job:
    return Job(f"r{k}", user, JobRequest(procs), 3600, NOW - 100, state=JobState.RUNNING,
               start_time=NOW - 60, allocation=((f"n{k}", Resources(procs=procs)),))


@given(st.lists(st.tuples(st.sampled_from(USERS), st.integers(1, 8)), max_size=8),
       st.sampled_from(USERS), st.integers(1, 8), st.integers(1, 24), st.integers(1, 6))
def test_a_limit_line_exactly_when_the_user_would_cross_it(runs, user, procs, maxproc, maxjob):
    cfg = parse_config(f"USERCFG[DEFAULT] MAXPROC={maxproc} MAXJOB={maxjob}\n")
    running = [_running(k, u, p) for k, (u, p) in enumerate(runs)]
    job = Job("q", user, JobRequest(procs), 600, NOW - 10)
    used_procs = sum(p for u, p in runs if u == user)
    used_jobs = sum(1 for u, _p in runs if u == user)
    got = limit_wait(cfg, job, running, NOW)
    over_jobs, over_procs = used_jobs + 1 > maxjob, used_procs + procs > maxproc
    assert (got is not None) == (over_jobs or over_procs)
    if got is not None:
        said = {f"user limit MAXJOB {maxjob} reached: {used_jobs} in use (user {user})",
                f"user limit MAXPROC {maxproc} reached: {used_procs} in use (user {user})"}
        assert got.reason in said and got.what == "limit"
        assert ("MAXJOB" in got.reason and over_jobs) or ("MAXPROC" in got.reason and over_procs)
