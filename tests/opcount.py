"""Operation counts for tests that check how work grows with input size, instead of timing it
(a timing fails on a loaded machine; a count of function calls does not). Speed figures live
in benchmarks/."""

from __future__ import annotations

import sys
from typing import Any, Callable


def calls(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """How many Python and built-in function calls fn(*args, **kwargs) makes, in this thread.
    The same for the same input whatever the machine's load."""
    count = 0

    def profile(_frame, event, _arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    old = sys.getprofile()
    sys.setprofile(profile)
    try:
        fn(*args, **kwargs)
    finally:
        sys.setprofile(old)
    return count
