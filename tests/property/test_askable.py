"""FIRSTFIT's walk over the candidates policy/askable.Askable hands out (switch
backfill.GROUPED) decides as first_fit's walk over every candidate with its failure memo:
Askable hands out exactly the candidates that memo lets through, in order (its invariant
checked after every answer, `_check()`), and replays on several node kinds under
FIRSTFIT and BESTFIT, with and without BFPRIORITYPOLICY DURATION, give each cycle the same
decisions, reports and reservations, the table checked after every cycle
(SimOptions.check_table), the walk's runs of candidates (backfill.CHUNK) short or long."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.policy import askable, backfill

from .node_kinds import kept_text, kept_view, memory_queue, nodes_and_jobs, replay_cycles

SETTINGS = settings(max_examples=80 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))


def memo_walk(keys: list[int], spans: list[int], answers: list[str]) -> list[int]:
    """The definition: every candidate in order, passed over when its key failed at this
    epoch for a span no longer than its own; the k-th one asked is answered answers[k]
    ("fail", "pass", or "reset": passed, then the epoch moves and every failure goes)."""
    dead: dict[int, int] = {}
    out = []
    for i, (k, s) in enumerate(zip(keys, spans)):
        if k in dead and s >= dead[k]:
            continue
        a = answers[len(out) % len(answers)]
        out.append(i)
        if a == "fail":
            dead[k] = s
        elif a == "reset":
            dead = {}
    return out


def askable_walk(keys: list[int], spans: list[int], answers: list[str],
                 cut: int) -> list[int]:
    """Askable over keys[:cut], then over keys[cut:] with the failures of the first."""
    out: list[int] = []
    before = None
    for lo, hi in ((0, cut), (cut, len(keys))):
        ask = askable.Askable(iter(keys[lo:hi]), spans[lo:hi], before)
        ask._check()
        while (i := ask.pop()) is not None:
            a = answers[len(out) % len(answers)]
            out.append(lo + i)
            if a == "fail":
                ask.failed()
            else:
                ask.passed()
                if a == "reset":
                    ask.reset(i)
            ask._check()
        before = ask.failures()
    return out


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(1, 6)), max_size=40),
       st.lists(st.sampled_from(["fail", "fail", "pass", "reset"]), min_size=1, max_size=12),
       st.integers(0, 40))
def test_askable_hands_out_what_the_memo_lets_through(cands, answers, cut):
    keys, spans = [k for k, _s in cands], [s for _k, s in cands]
    cut = min(cut, len(keys))
    assert askable_walk(keys, spans, answers, cut) == memo_walk(keys, spans, answers)


@st.composite
def workloads(draw):
    nodes, sims = nodes_and_jobs(draw, two_node=True)
    text = kept_text(draw, ["BFPRIORITYPOLICY DURATION\n", "PROCWEIGHT 50\n"])
    return nodes, sims, text, draw(st.booleans()), draw(st.sampled_from([1, 3, 256]))


def replay(nodes, sims, text, per_event, grouped: bool, monkeypatch,
           chunk: int = 256) -> tuple[list, dict]:
    monkeypatch.setattr(backfill, "GROUPED", grouped)
    monkeypatch.setattr(backfill, "CHUNK", chunk)
    monkeypatch.setattr(backfill, "GROUP_FROM", 0)
    return replay_cycles(nodes, sims, text, per_event, kept_view)


@SETTINGS
@given(workloads())
def test_grouped_first_fit_decides_as_asking_every_candidate(monkeypatch, w):
    nodes, sims, text, per_event, chunk = w
    fast = replay(nodes, sims, text, per_event, True, monkeypatch, chunk)
    definition = replay(nodes, sims, text, per_event, False, monkeypatch)
    assert fast[1] == definition[1]
    assert fast[0] == definition[0]


def test_the_grouped_walk_leaves_out_candidates_of_a_failed_request(monkeypatch):
    """One node whose memory a running job mostly takes; eight queued jobs of one request
    (3 GB) behind a wide one that reserves, and a small one last: the backfill pass asks
    the 3 GB request once and hands out the small job, which starts, as the walk over
    every candidate decides (else the comparison above would compare the definition with
    itself)."""
    nodes, sims, text = memory_queue()
    passes: list[tuple[int, list[int]]] = []     # (candidates, positions handed out)

    class Counted(askable.Askable):
        def __init__(self, keys, spans, before=None):
            super().__init__(keys, spans, before)
            passes.append((len(spans), []))

        def pop(self):
            got = super().pop()
            if got is not None:
                passes[-1][1].append(got)
            return got
    monkeypatch.setattr(backfill, "Askable", Counted)
    fast = replay(nodes, sims, text, True, True, monkeypatch)
    assert any(len(got) < n for n, got in passes), passes
    definition = replay(nodes, sims, text, True, False, monkeypatch)
    assert fast == definition
    assert fast[1]["small"][0] < fast[1]["b0"][0]
