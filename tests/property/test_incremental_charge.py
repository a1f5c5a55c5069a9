"""Fair share and active-job limits kept incrementally equal charging every running job from
scratch each cycle (the definitions in priority/fairshare.py's and policy/limits.py's
docstrings), over random starts, ends, changes and clocks crossing FSINTERVAL boundaries."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core.jobsets import Moves
from maui_py.policy.limits import ActiveUsage
from maui_py.priority.fairshare import KEEP_WINDOWS, FairShare
from tests.scenarios.build import job

INTERVAL = 100
USERS, ACCOUNTS = ("u1", "u2", "u3"), ("", "a1", "a2")


def _keys(j) -> tuple[str, ...]:
    creds = (("user", j.user), ("group", j.group), ("acct", j.account), ("qos", j.qos),
             ("class", j.class_))
    return tuple(f"{p}:{n}" for p, n in creds if n) + ("sched:",)


class Scratch:
    """Every running job charged rate x (now - max(last, start)) each cycle; a job gone
    since the last cycle charged up to min(now, start + wallclock) (the module docstring);
    windows more than KEEP_WINDOWS old dropped (FairShare._roll)."""

    def __init__(self, pes: bool):
        self.pes, self.windows, self.last, self.seen, self.totals = pes, {}, None, {}, (1, 0)

    def rate(self, j) -> float:
        procs = float(j.procs)
        cp, cm = self.totals
        if self.pes and cm > 0 and j.request.total.mem:
            procs = max(procs, j.request.total.mem / cm * cp)
        return procs

    def add(self, keys, rate, a, b):
        while a < b and rate > 0:
            k = a // INTERVAL
            end = min(b, (k + 1) * INTERVAL)
            w = self.windows.setdefault(k, {})
            for key in keys:
                w[key] = w.get(key, 0.0) + rate * (end - a)
            a = end

    def charge(self, now, running):
        last = now if self.last is None else self.last
        seen = {}
        for j in running:
            known = self.seen.get(j.id)
            start = j.start_time if j.start_time is not None else (known[0] if known else now)
            seen[j.id] = (start, self.rate(j), j.wallclock, _keys(j))
            self.add(_keys(j), self.rate(j), max(last, start), now)
        for jid, (s, r, wc, keys) in self.seen.items():
            if jid not in seen:
                self.add(keys, r, max(last, s), min(now, s + max(wc, 1)))
        self.seen, self.last = seen, now
        for k in [k for k in self.windows if k <= now // INTERVAL - KEEP_WINDOWS]:
            del self.windows[k]                 # windows older than KEEP_WINDOWS are forgotten


step = st.tuples(
    st.integers(0, 260),                                           # clock advance
    st.lists(st.tuples(st.integers(0, 11), st.integers(1, 8), st.sampled_from(USERS),
                       st.sampled_from(ACCOUNTS), st.sampled_from((None, 0, 30, 500)),
                       st.sampled_from((0, 100, 4000))), max_size=4),   # starts / changes
    st.lists(st.integers(0, 11), max_size=3),                      # ends
    st.booleans(),                                                 # start some via note_started
    st.sampled_from(((64, 0), (64, 8000), (32, 8000))),            # cluster totals (PES)
)


class Mover:
    """The Moves (core/jobsets.py) from one running set to the next, as the cycle hands
    them to charge and usage: the jobs new or replaced, the ids that left."""

    def __init__(self):
        self.last: dict = {}
        self.token = 0

    def __call__(self, running) -> Moves:
        cur = {j.id: j for j in running}
        moved = tuple(j for jid, j in cur.items() if self.last.get(jid) is not j)
        left = frozenset(k for k in self.last if k not in cur)
        self.last, prev = cur, self.token
        self.token = next(TOKENS)
        return Moves(prev, self.token, moved, left)


TOKENS = iter(range(10**9, 2 * 10**9))


TARGETS = ("FSDECAY 0.8\nUSERCFG[DEFAULT] FSTARGET=30\nUSERCFG[u2] FSTARGET=20-\n"
           "ACCOUNTCFG[a1] FSTARGET=50+\nACCOUNTCFG[a2] FSTARGET=10\n")
FS_TARGETS = {"user": {"u1": (30, ""), "u2": (20, "ceiling"), "u3": (30, "")},
              "acct": {"a1": (50, "floor"), "a2": (10, "")}}


def _check_subfactors(fs, ref, now, policy) -> None:
    """Every credential set's subfactors (asked in two orders, so that the per-key values
    kept until the next charge are met from another set) equal the definition worked out
    from the from-scratch windows: usage = W0 + 0.8 W1 + 0.64 W2, pct = 100 usage / the
    system's, FS = target - pct (a floor kept >= 0, a ceiling <= 0), zeros left out."""
    cur = now // INTERVAL

    def usage(key):
        return sum(ref.windows.get(cur - i, {}).get(key, 0.0) * 0.8 ** i for i in range(3))
    total = usage("sched:")
    sets = [(u, a) for u in USERS for a in ACCOUNTS]
    for order in (sets, sets[::-1]):
        for u, a in order:
            got = fs.subfactors(job("x", 1, 10, 0, user=u, account=a))
            want = {}
            for prefix, name, sf in (("user", u, "FSUSER"), ("acct", a, "FSACCOUNT")):
                target, mode = FS_TARGETS[prefix].get(name, (0, ""))
                if total <= 0 or not target:
                    continue
                v = target - 100.0 * usage(f"{prefix}:{name}") / total
                v = max(v, 0.0) if mode == "floor" else min(v, 0.0) if mode == "ceiling" else v
                if v:
                    want[sf] = v
            assert got.keys() == want.keys(), (u, a, got, want)
            for k, v in want.items():
                assert got[k] == pytest.approx(v, rel=1e-9, abs=1e-9), (u, a, k)


def _running(jid, procs, user, acct, back, mem, now, wall):
    start = None if back is None else max(0, now - back)
    j = job(f"j{jid}", procs, wall, 0, user=user, account=acct, mem=mem, start=0,
            nodes=("n0",), per_node=procs)
    return replace(j, start_time=start)


@pytest.mark.parametrize("policy", ["DEDICATEDPS", "DEDICATEDPES"])
@settings(max_examples=150, deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=25), wall=st.sampled_from((50, 300, 10**6)))
@example(steps=[(0, [], [], False, (64, 0)), (37, [], [], False, (64, 0)),
                (52, [(0, 1, "u1", "", None, 0)], [], False, (64, 0))]
         + [(dt, [], [], False, (64, 0)) for dt in (52, 116, 120, 136, 151, 151, 167, 170, 171,
                                                   184, 222, 225, 227, 250, 253, 258, 258)],
         wall=50)           # found by hypothesis: a job running past KEEP_WINDOWS windows
@example(steps=[(0, [(0, 1, "u1", "", 0, 0)], [], True, (64, 0)), (10, [], [0], False, (64, 0)),
                (10, [], [], False, (64, 0))],
         wall=300)          # a job started by the cycle that ends before a snapshot shows it
def test_incremental_fairshare_equals_charging_every_job(policy, steps, wall):
    cfg = parse_config(f"FSPOLICY {policy}\nFSINTERVAL {INTERVAL}\nFSDEPTH 3\n" + TARGETS, "t.cfg")
    fs, moving, mover = FairShare(cfg), FairShare(cfg), Mover()
    ref = Scratch(policy == "DEDICATEDPES")
    world: dict[str, object] = {}
    now = 1000
    for dt, starts, ends, noted, totals in steps:
        now += dt
        fs.set_totals(*totals)
        moving.set_totals(*totals)
        ref.totals = fs.totals
        for jid in ends:
            world.pop(f"j{jid}", None)
        later = []
        for jid, procs, user, acct, back, mem in starts:
            j = _running(jid, procs, user, acct, back, mem, now, wall)
            if noted and back == 0:
                later.append(j)
            else:
                world[j.id] = j
        running = list(world.values())
        fs.charge(now, running)
        moving.charge(now, running, mover(running))
        ref.charge(now, running)
        if later:                           # started by this cycle: charged from now on
            fs.note_started(later, now)
            moving.note_started(later, now)
            for j in later:
                ref.seen[j.id] = (now, ref.rate(j), j.wallclock, _keys(j))
                world[j.id] = j
        got = {k: w for k, w in fs.windows.items() if any(w.values())}
        want = {k: w for k, w in ref.windows.items() if any(w.values())}
        assert got.keys() == want.keys()
        for k, w in want.items():
            if policy == "DEDICATEDPS":
                assert got[k] == w              # whole processors: exactly the same floats
            else:
                assert got[k] == pytest.approx(w, rel=1e-9, abs=1e-6)
        assert moving.seen == fs.seen           # the moves name every job that changed
        _check_subfactors(fs, ref, now, policy)
        assert {k: w for k, w in moving.windows.items() if any(w.values())} == got \
            or policy == "DEDICATEDPES" and moving.windows.keys() == fs.windows.keys()


usage_step = st.tuples(
    st.integers(-40, 200),                                         # clock (sometimes back)
    st.lists(st.tuples(st.integers(0, 11), st.integers(1, 8), st.sampled_from(USERS),
                       st.sampled_from(ACCOUNTS), st.sampled_from((None, 0, 30, 500)),
                       st.sampled_from((0, 100)), st.sampled_from((50, 300, 5000))),
             max_size=4),
    st.lists(st.integers(0, 11), max_size=3),
)


def _scratch_usage(now, running) -> dict:
    """Every running job's amounts added from scratch: JOB 1, PROC, NODE, PS = procs x
    remaining, MEM, WC = remaining, remaining = max(start + wallclock - now, 0)."""
    out: dict = {}
    for j in running:
        s = j.start_time if j.start_time is not None else now
        rem = max(s + j.wallclock - now, 0)
        nodes = len(j.allocation) or j.request.nodes or 1
        for kind, name in (("user", j.user), ("group", j.group), ("account", j.account),
                           ("class", j.class_), ("qos", j.qos)):
            if name:
                t = out.setdefault((kind, name), dict.fromkeys(("JOB", "PROC", "NODE", "PS",
                                                                 "MEM", "WC"), 0))
                for k, v in (("JOB", 1), ("PROC", j.procs), ("NODE", nodes),
                             ("PS", j.procs * rem), ("MEM", j.request.total.mem), ("WC", rem)):
                    t[k] += v
    return out


@settings(max_examples=200, deadline=None)
@given(steps=st.lists(usage_step, min_size=1, max_size=25))
def test_active_usage_equals_adding_every_running_job(steps):
    tracker, moving, mover = ActiveUsage(), ActiveUsage(), Mover()
    world: dict[str, object] = {}
    now = 1000
    for dt, starts, ends in steps:
        now += dt
        for jid in ends:
            world.pop(f"j{jid}", None)
        for jid, procs, user, acct, back, mem, wall in starts:
            j = _running(jid, procs, user, acct, back, mem, now, wall)
            world[j.id] = j
        running = list(world.values())
        want = _scratch_usage(now, running)
        assert tracker.usage(now, running).totals == want
        assert moving.usage(now, running, mover(running)).totals == want
