"""Invariants of fair share, Armada slicing and FBSNG thresholds on random inputs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.cfg import FsTarget, parse_config
from maui_py.priority.armada import as_usage, resource_scarcity, slice_resource
from maui_py.priority.fairshare import SYSTEM, FairShare, decayed, fs_subfactor
from maui_py.priority.fbsng import FbsngPolicy
from maui_py.priority.policy import PolicyView
from maui_py.priority.queues import make_queue_policy
from tests.scenarios.build import job

pct = st.floats(0, 100)
target = st.floats(0.01, 100)


@settings(max_examples=300, deadline=None)
@given(target, pct, pct, st.booleans())
def test_floor_and_ceiling_never_push_the_wrong_way(value, p, q, percent):
    floor = fs_subfactor(FsTarget(value, "floor"), p, percent)
    ceiling = fs_subfactor(FsTarget(value, "ceiling"), p, percent)
    plain = fs_subfactor(FsTarget(value), p, percent)
    assert floor >= 0 and ceiling <= 0
    assert floor + ceiling == pytest.approx(plain)        # each keeps its own half of the target
    if p < value:
        assert ceiling == 0
    if p > value:
        assert floor == 0
    if p <= q:                                            # more usage never means more priority
        assert fs_subfactor(FsTarget(value), q, percent) <= plain
    for cap in ("capabs", "caprel"):
        assert fs_subfactor(FsTarget(value, cap), p, percent) == 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=12), st.floats(0, 1), st.integers(1, 12))
def test_usage_is_the_decayed_sum_of_the_fsdepth_newest_windows(windows, decay, depth):
    fs = FairShare(parse_config(f"FSPOLICY DEDICATEDPS\nFSINTERVAL 100\nFSDEPTH {depth}\nFSDECAY {decay}\n", "t"))
    now = 100 * len(windows) - 1
    fs.restore({"last": now, "windows": [[100 * (len(windows) - 1 - i), {"user:u": w}]
                                         for i, w in enumerate(windows)]})
    assert fs.usage("user:u") == pytest.approx(decayed(windows[:depth], decay), rel=1e-9, abs=1e-6)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 400), min_size=1, max_size=15), st.integers(1, 8), st.integers(0, 300))
def test_charging_is_additive_whatever_the_cycle_times(gaps, procs, start):
    """A job running through any sequence of cycles is charged procs x its run time, once."""
    fs = FairShare(parse_config("FSPOLICY DEDICATEDPS\nFSINTERVAL 250\nFSDEPTH 32\n", "t"))
    fs.charge(start, [])
    j = job("a", procs, 10 ** 6, start, user="u", start=start, nodes=("n",), per_node=procs)
    t = start
    for g in gaps:
        t += g
        fs.charge(t, [j])
    fs.charge(t + 50, [])
    assert fs.usage(SYSTEM) == pytest.approx(procs * (t + 50 - start))


resources = st.fixed_dictionaries({"procs": st.integers(1, 500)},
                                  optional={"mem": st.integers(1, 10 ** 6), "gpu": st.integers(1, 64)})


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from("abcdef"), st.tuples(st.floats(0.5, 1e4), st.floats(0, 1e4)),
                       min_size=1), st.lists(st.floats(0, 1e5), min_size=1, max_size=3), st.data())
def test_armada_slices_sum_to_the_free_resources(queues, free, data):
    scarcity = tuple(data.draw(st.floats(0.01, 10)) for _ in free)
    slices = slice_resource(scarcity, queues, tuple(free))
    assert set(slices) == set(queues)
    for k, amount in enumerate(free):
        assert sum(s[k] for s in slices.values()) == pytest.approx(amount, rel=1e-9, abs=1e-6)
        assert all(s[k] >= 0 for s in slices.values())


@settings(max_examples=200, deadline=None)
@given(resources, resources)
def test_armada_usage_counts_cpu_as_one_and_is_linear(total, used):
    scarcity = resource_scarcity(total)
    assert scarcity["procs"] == 1.0
    assert as_usage(scarcity, {"procs": used["procs"]}) == used["procs"]
    double = {k: 2 * v for k, v in used.items()}
    assert as_usage(scarcity, double) == pytest.approx(2 * as_usage(scarcity, used))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["q0", "q1", "q2", "q3"]),
                       st.tuples(st.integers(0, 50), st.integers(0, 30), st.integers(1, 3)), min_size=1))
def test_fbsng_holds_exactly_the_queues_below_the_threshold(queues):
    """With nothing able to start, the held jobs are those of the queues whose QP is below
    QP(first) - QPG(first), first being the highest QP (oldest job on ties)."""
    text = "".join(f"QUEUECFG[{q}] QPMAX=100 QPG={g}\n" for q, (_qp, g, _n) in queues.items())
    p = make_queue_policy(parse_config("QUEUEPOLICY FBSNG\n" + text, "t"))
    assert isinstance(p, FbsngPolicy)
    p.qp = {q: float(qp) for q, (qp, _g, _n) in queues.items()}
    order = [job(f"{q}.{i}", 8, 10, 10 * k + i, class_=q)
             for k, (q, (_qp, _g, n)) in enumerate(sorted(queues.items())) for i in range(n)]
    arr = p.arrange(order, PolicyView(0, [], {"procs": 4}, {"procs": 8}, None))
    first = min(queues, key=lambda q: (-queues[q][0], sorted(queues).index(q)))
    qpt = queues[first][0] - queues[first][1]
    expected = {j.id for j in order if queues[j.class_][0] < qpt}
    assert set(arr.held) == expected
    assert {j.id for j in arr.order} == {j.id for j in order} - expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(1, 3)), min_size=1, max_size=60))
def test_fbsng_priorities_stay_in_bounds_and_starts_keep_their_differences(starts):
    p = make_queue_policy(parse_config("QUEUEPOLICY FBSNG\nQUEUECFG[a] QPD=3\nQUEUECFG[b] QPD=7 QPMIN=2\n"
                                       "QUEUECFG[c] QPD=1 QPMAX=50\n", "t"))
    for q, n in starts:
        order = [job(f"{q}{i}", 1, 10, i, class_=q) for i in range(n)]
        before = dict(p.qp)
        p.arrange(order, PolicyView(0, [], {"procs": 0}, {"procs": 8}, None))
        p.observe(order[:1], PolicyView(0, [], {"procs": 0}, {"procs": 8}, None))
        for r, v in p.qp.items():
            assert p.setting(r, "QPMIN") <= v <= p.setting(r, "QPMAX")
        moved = {r: p.qp[r] - before.get(r, p.setting(r, "QPMIN")) for r in p.qp}
        unclamped = [r for r in p.qp if p.setting(r, "QPMIN") < p.qp[r] < p.setting(r, "QPMAX")]
        if q in unclamped:
            assert all(moved[q] - moved[r] == pytest.approx(-p.setting(q, "QPD")) for r in unclamped if r != q)


modes = st.sampled_from(["", "+", "-", "^", "%"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["user:a", "user:b", "group:g", "acct:p", SYSTEM]),
                          st.floats(0, 1e6)), max_size=8),
       st.tuples(st.floats(0.5, 60), modes), st.tuples(st.floats(0.5, 60), modes),
       st.tuples(st.floats(0.5, 60), modes), st.booleans(), st.booleans())
def test_empty_says_exactly_when_a_credential_set_has_no_subfactor(usage, ut, gt, dt, percent,
                                                                    asked_first):
    """FairShare.empty (the re-ranking's short cut, core/selection._of_creds) is True
    exactly when subfactors_of gives no subfactor, whichever is asked first (they share
    the per-key values), and leaves subfactors_of's answer as it would be alone."""
    mode = "DEDICATEDPS%" if percent else "DEDICATEDPS"
    cfg = parse_config(f"FSPOLICY {mode}\nFSINTERVAL 100\nUSERCFG[a] FSTARGET={ut[0]:.2f}{ut[1]}\n"
                       f"GROUPCFG[g] FSTARGET={gt[0]:.2f}{gt[1]}\n"
                       f"USERCFG[DEFAULT] FSTARGET={dt[0]:.2f}{dt[1]}\n", "t")
    windows: dict[str, float] = {}
    for key, v in usage:
        windows[key] = windows.get(key, 0.0) + v
    for creds in (("a", "g", "p", "", ""), ("b", "", "", "", ""), ("c", "g", "", "q", "")):
        fresh, fs = FairShare(cfg), FairShare(cfg)
        for f in (fresh, fs):
            f.restore({"last": 50, "windows": [[0, dict(windows)]]})
        alone = fresh.subfactors_of(creds)
        if asked_first:
            assert fs.empty(creds) == (not alone)
            assert fs.subfactors_of(creds) == alone
        else:
            assert fs.subfactors_of(creds) == alone
            assert fs.empty(creds) == (not alone)
