"""How a forecast's replays are run faster without changing what they give (issue 36,
"a forecast of the whole queue at 10k nodes / 5k queued within its budget").

Each shortcut has a switch in `Shortcuts` (all on by default; `OFF` turns every one off,
the way the forecast ran before them) and an invariant the property tests check, on
against off (tests/forecast/test_shortcuts.py):

  quiet   the cyclic garbage collector is paused through each replay (`quiet_replay`),
          not only through its cycles: between two cycles it would otherwise walk the
          replay's whole heap (the table, every job's record) again and again, some 15 %
          of a replay at 10k nodes. A finished replay's world is freed by reference
          counting (engine._let_go breaks the cycles that held it); what is left in cycles
          is collected once after the replay, from the youngest generation, where all of
          it still is (0.001 s at 10k nodes). Invariant: a collector never changes a
          value, so each replay's starts are the same.
  menu    engine.choices works out a job's draws once per (user, request, run so far),
          not once per job: `spans` and the ratios as runtimes are pure functions of
          those. Invariant: the menu is equal, item for item, to the one made job by job.
  copy    each replay's copy of the state's plain data (engine.plain_copy, and the copies of
          it for the replays after the first) is a pickle round trip of this process's own
          objects, not copy.deepcopy (about 9 x cheaper at 10k nodes: 0.25 -> 0.03 s);
          deepcopy where something does not pickle. Invariant: the copy equals deepcopy's
          and shares no object that can change with the original.
  workers replays run in that many forked processes at once (budgeted.forecast_within);
          the first k replays done are the same replays whatever the number, and their
          results are combined in replay order. Invariant: with the same replays done,
          the same forecasts. Only where fork is available; 1 (the default) is the loop
          in this process.
"""

from __future__ import annotations

import copy as _copy
import gc
import pickle
from dataclasses import dataclass
from typing import TypeVar

MAX_WORKERS = 64
"""Processes a forecast may run its replays in at most (a bound on a configured number)."""


@dataclass(frozen=True, slots=True)
class Shortcuts:
    """Which shortcuts a forecast takes (see the module docstring)."""

    quiet: bool = True
    menu: bool = True
    workers: int = 1
    copy: bool = True

    def bounded(self) -> Shortcuts:
        return Shortcuts(bool(self.quiet), bool(self.menu), max(1, min(int(self.workers), MAX_WORKERS)),
                         bool(self.copy))


ON = Shortcuts()
OFF = Shortcuts(quiet=False, menu=False, workers=1, copy=False)

T = TypeVar("T")


def deep_copy(obj: T, fast: bool = True) -> T:
    """copy.deepcopy(obj); with `fast`, by a pickle round trip (objects this process made,
    never bytes from outside), which gives the same copy (the same sharing within it,
    enums and classes as themselves: nothing in the state defines copy or pickle hooks)
    about 9 x faster, and deepcopy where something does not pickle. O(size of obj)."""
    if fast:
        try:
            return pickle.loads(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
        except (pickle.PicklingError, TypeError, AttributeError):
            pass
    return _copy.deepcopy(obj)


class quiet_replay:
    """The collector paused inside a `with` (as core.gcpause.paused, which the replay's
    cycles nest in harmlessly), and the youngest generation collected on the way out when
    it was on before: with the collector off nothing is promoted, so whatever the replay
    left in cycles is there. `on` False: does nothing. O(1) in, O(objects the replay left
    alive or in cycles) out."""

    __slots__ = ("on", "_was")

    def __init__(self, on: bool = True):
        self.on = on
        self._was = False

    def __enter__(self) -> None:
        if self.on:
            self._was = gc.isenabled()
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.on and self._was:
            gc.enable()
            gc.collect(0)
