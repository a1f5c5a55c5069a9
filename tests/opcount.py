"""Operation counts for tests that check how work grows with input size, instead of timing it
(a timing fails on a loaded machine; a count of function calls does not). Speed figures live
in benchmarks/."""

from __future__ import annotations

import gc
import sys
from typing import Any, Callable

from maui_py.planning.table import ReservationTable


def calls(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """How many Python and built-in function calls fn(*args, **kwargs) makes, in this thread.
    The same for the same input whatever the machine's load. The garbage collector is paused
    meanwhile: its callbacks (hypothesis installs one) would add calls that depend on what ran
    before, not on fn."""
    return _counted(("call", "c_call"), fn, *args, **kwargs)


def py_calls(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """How many Python-level function calls (not built-ins) fn(*args, **kwargs) makes, as
    calls() counts them."""
    return _counted(("call",), fn, *args, **kwargs)


def _counted(events: tuple[str, ...], fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    count = 0

    def profile(_frame, event, _arg):
        nonlocal count
        if event in events:
            count += 1

    old, collecting = sys.getprofile(), gc.isenabled()
    gc.disable()
    sys.setprofile(profile)
    try:
        fn(*args, **kwargs)
    finally:
        sys.setprofile(old)
        if collecting:
            gc.enable()
    return count


class FitCountingTable(ReservationTable):
    """A node table that counts the per-node fits it works out (the scan's and the
    start-now walk's): how many nodes a question looked at."""
    asked = 0

    def _fit_between(self, cr, i, s, e):
        self.asked += 1
        return super()._fit_between(cr, i, s, e)

    def _fit_missed(self, i, T, e, d, exclusive, flat):
        self.asked += 1
        return super()._fit_missed(i, T, e, d, exclusive, flat)
