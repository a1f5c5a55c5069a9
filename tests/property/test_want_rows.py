"""sparse.Want.first's rows kept between walks (policy/wantrows.Rows, brought up to date by
comparing what each reservation reads, in C) decide exactly as sorting every kept
reservation each walk (wantrows.ROWS off, the definition): every cycle's starts and
reservations and every job's start the same, the table checked every cycle
(check_table), the walks' operation counts the same, and at every refresh the kept rows
equal those sorted from scratch (wantrows.CHECK: Rows._check)."""

from __future__ import annotations

from hypothesis import given

from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.policy import wantrows
from maui_py.sim.swf import SimJob

from .on_off import assert_same_cycles
from .test_kept_settled import SETTINGS, replay_stamps, workloads


def _replay(monkeypatch, nodes, sims, text, per_event, on: bool):
    """replay() with wantrows.ROWS set and CHECK on; (decisions, reservations passed over,
    left, re-made, refreshes, reservations sorted again)."""
    monkeypatch.setattr(wantrows, "ROWS", on)
    monkeypatch.setattr(wantrows, "CHECK", True)
    out, made = replay_stamps(monkeypatch, nodes, sims, text, per_event)
    return out, tuple(sum(getattr(s, k) for s in made) for k in ("passed", "left", "remade")), \
        tuple(sum(getattr(s.rows, k) for s in made) for k in ("refreshes", "sorted", "asked"))


@SETTINGS
@given(workloads())
def test_rows_kept_between_walks_decide_as_sorting_every_reservation(monkeypatch, w):
    nodes, sims, text, per_event = w
    fast, counts, _ops = _replay(monkeypatch, nodes, sims, text, per_event, True)
    definition, counts_def, none = _replay(monkeypatch, nodes, sims, text, per_event, False)
    assert none == (0, 0, 0)
    assert counts == counts_def
    assert_same_cycles(fast, definition)


def test_a_deep_queue_sorts_only_what_changed(monkeypatch):
    """Whole-node jobs queued deep behind short ones that end early: walks happen with
    most reservations unchanged since the last one, so fewer are sorted again than the
    walks would sort from scratch, with the same decisions and counts."""
    nodes = tuple(Node(f"n{i}", Resources.of(4, mem=4096)) for i in range(3))
    sims = [SimJob(Job(f"s{k:02d}", "u0", JobRequest(tasks=2, per_task=Resources.of(1)),
                       600, 20 * k), 30 + 7 * k) for k in range(12)]
    sims += [SimJob(Job(f"l{k:02d}", "u1", JobRequest(tasks=4, per_task=Resources.of(1)),
                        3000, 5 + 10 * k), 2000) for k in range(14)]
    text = ("RESERVATIONPOLICY HIGHEST\nQUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 100\n"
            "BACKFILLPOLICY FIRSTFIT\n")
    fast, counts, (refreshes, resorted, asked) = _replay(monkeypatch, nodes, sims, text, True,
                                                          True)
    definition, counts_def, _none = _replay(monkeypatch, nodes, sims, text, True, False)
    assert refreshes >= 3
    assert resorted < asked             # some were not sorted again
    assert counts == counts_def
    assert fast == definition
