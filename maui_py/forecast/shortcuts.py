"""How a forecast's replays are run faster without changing what they give (issue 36,
"a forecast of the whole queue at 10k nodes / 5k queued within its budget").

Each shortcut has a switch in `Shortcuts` (all on by default; `OFF` turns every one off,
the way the forecast ran before them) and an invariant the property tests check, on
against off (tests/forecast/test_shortcuts.py):

  quiet   the cyclic garbage collector is paused through each replay (`quiet_replay`),
          not only through its cycles: between two cycles it would otherwise walk the
          replay's whole heap (the table, every job's record) again and again, some 15 %
          of a replay at 10k nodes. The replay's cyclic garbage (about 15 MB a replay
          there) is collected once after it, from the youngest generation, where all of
          it still is. Invariant: a collector never changes a value, so each replay's
          starts are the same.
  menu    engine.choices works out a job's draws once per (user, request, run so far),
          not once per job: `spans` and the ratios as runtimes are pure functions of
          those. Invariant: the menu is equal, item for item, to the one made job by job.
  workers replays run in that many forked processes at once (budgeted.forecast_within);
          the first k replays done are the same replays whatever the number, and their
          results are combined in replay order. Invariant: with the same replays done,
          the same forecasts. Only where fork is available; 1 (the default) is the loop
          in this process.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass

MAX_WORKERS = 64
"""Processes a forecast may run its replays in at most (a bound on a configured number)."""


@dataclass(frozen=True, slots=True)
class Shortcuts:
    """Which shortcuts a forecast takes (see the module docstring)."""

    quiet: bool = True
    menu: bool = True
    workers: int = 1

    def bounded(self) -> Shortcuts:
        return Shortcuts(bool(self.quiet), bool(self.menu), max(1, min(int(self.workers), MAX_WORKERS)))


ON = Shortcuts()
OFF = Shortcuts(quiet=False, menu=False, workers=1)


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
