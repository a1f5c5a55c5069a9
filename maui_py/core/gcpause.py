"""Python's cyclic garbage collector paused while a burst of work runs.

A scheduling cycle (or reading a trace) allocates hundreds of thousands of objects while
the heap holds every job of the queue; the collector, triggered by allocation counts, then
walks that heap again and again (at 55,000 jobs about half of a steady cycle's time). The
places that run cycles (mauid's loop, the simulator) run each one with the collector
paused; it runs again between cycles, in the idle time before the next poll, and frees what
the cycle left. run_cycle itself never touches it: a library function does not change
process-global state, and nothing in a cycle imports this module: it lives in core beside
run_cycle for the daemon and the simulator, which both may import core.
"""

from __future__ import annotations

import gc


class paused:
    """The collector off inside a `with`, as it was before on exit (nesting separate
    instances is harmless; one instance may be used again after its `with` ends). A class,
    not a generator: entering costs about 0.2 us, against 1.4 us, which a replay pays once
    per event. O(1); the first collection after it may take longer, as it sees everything
    allocated inside."""

    __slots__ = ("_was",)

    def __enter__(self) -> None:
        self._was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._was:
            gc.enable()
