"""How long a credential set stays without fair-share subfactors: FairShare.empties kept
across charges (issue 33).

Under ceiling targets (config/fairshare.cfg's USERCFG[DEFAULT] FSTARGET=5.0-) nearly every
queued credential set has no FS subfactor, and the fair-share re-ranking asks FairShare.empties
of every set of the kept queue, the parked jobs' included, each cycle: ~95 sets a cycle on a
site's week. Each set is worked out again although its answer rarely moves. Here a set
found empty keeps, until the next window roll, a bound on the system's current-window
usage w0 up to which it stays empty; asking it again is a look-up and a comparison.

**Exactness** (the definition is empties() working out every set at every charge). Within
one roll (FairShare._rolls unchanged) the older windows' decayed sum F is fixed and the
current window W only grows: every charge adds rate x span >= 0. Without
processor-equivalents the rates are whole processors and the spans whole seconds, so while
the current window holds whole numbers below 2^52 (checked once per roll) every sum is
exact; and every amount charged to a key is charged to the system too (FairShare.keys ends
with SYSTEM, whose rate sum is every job's), so when w0 grew by D, a key's W grew by at
most D. A key's usage is fl(W + F), monotone in W; its percent fl(fl(100 x usage) / total)
is monotone in usage and falls as the total (fl(w0 + F_system), growing) grows; a
ceiling's subfactor min(T - pct, 0), or min(1 - pct/T, 0) under a % FSPOLICY, is 0 at
every pct at or below one where it is 0; a cap's is always 0 (fs_subfactor). So a key
whose subfactor is 0 when worked out with W + D and the total of now (D whole; `key_until`
checks it with fs_subfactor's own floats) stays 0 while w0 <= w0 now + D, and a set all of
whose targeted keys do is empty: the answer empties() gives. Plain and floor targets get
no bound beyond now (w0 unchanged). `Bounds.check` asserts every kept bound from the
current usage; tests/property/test_fs_empty_bounds.py compares charges and cycles with
BOUNDED on and off.

Cost: a look-up and a comparison per set asked; O(KINDS) for a set whose bound passed or
that is not empty; O(keys) once per roll.
"""

from __future__ import annotations

from typing import Callable

from ..cfg.values import FsTarget

BOUNDED = True
"""Keep each empty set's bound between charges (Bounds); False: FairShare.empties works
out every set, the definition tests/property/test_fs_empty_bounds.py compares against."""

EXACT = float(1 << 52)
"""Below this, sums of whole processor-seconds are exact floats."""
_SYSTEM = "sched:"
_INF = float("inf")


class Bounds:
    """One roll's bounds: `sets` maps an empty credential set to the w0 up to which it
    stays empty, `keys` a usage key to (that bound, its target). `sets` is None when the
    roll's current window is not all whole numbers (then empties works out every set).
    `subfactor`: fairshare.fs_subfactor (handed in: fairshare imports this module)."""

    __slots__ = ("rolls", "sets", "keys", "subfactor")

    def __init__(self, rolls: int, subfactor: Callable, now_w: dict | None = None):
        self.rolls, self.subfactor = rolls, subfactor
        ok = now_w is None or all(v.is_integer() for v in now_w.values())
        self.sets: dict | None = {} if ok else None
        self.keys: dict = {}

    def empties(self, sets: list, total: float, now_w: dict, older: dict,
                targets_of: Callable, by_key: dict, percent: bool) -> list | None:
        """FairShare.empties' answers for `sets`, or None when bounds may not be used
        (not whole numbers, or w0 past EXACT). `by_key` is FairShare._by_key (shared:
        each value worked out is recorded there). O(1) per set within its bound."""
        bounds = self.sets
        w0 = now_w.get(_SYSTEM, 0.0)
        if bounds is None or w0 >= EXACT:
            return None
        get = bounds.get

        def slow(creds) -> bool:
            return self._empty(creds, total, w0, now_w, older, targets_of, by_key, percent)
        return [(a := get(s)) is not None and w0 <= a or slow(s) for s in sets]

    def known(self, sets: list, w0: float) -> list | None:
        """For each of `sets`, whether its kept bound says it is empty at the system's
        current-window usage `w0` (True: empties() answers True; False: not known here),
        or None when bounds may not be used. Records nothing. O(1) per set."""
        bounds = self.sets
        if bounds is None or w0 >= EXACT:
            return None
        get = bounds.get
        return [(a := get(s)) is not None and w0 <= a for s in sets]

    def _empty(self, creds: tuple, total: float, w0: float, now_w: dict, older: dict,
               targets_of: Callable, by_key: dict, percent: bool) -> bool:
        """empty(creds), each key's value worked out as empties() does; when True, the
        set's bound (its keys' smallest) recorded. O(KINDS)."""
        keys, bound = self.keys, _INF
        for _prefix, _name, _sf, key, t in targets_of(creds):
            hit = keys.get(key)
            if hit is not None and w0 <= hit[0]:
                bound = min(bound, hit[0])
                continue
            v = by_key.get(key)
            if v is None:
                used = now_w.get(key, 0.0) + older.get(key, 0.0)
                v = by_key[key] = self.subfactor(t, 100.0 * used / total, percent)
            if v:
                self.sets.pop(creds, None)
                return False
            b = key_until(t, now_w.get(key, 0.0), older.get(key, 0.0), total, w0, percent,
                          self.subfactor)
            keys[key] = (b, t)
            bound = min(bound, b)
        self.sets[creds] = bound
        return True

    def check(self, total: float, now_w: dict, older: dict, percent: bool,
              empty: Callable) -> None:
        """Raise AssertionError unless every bound holds now: a key's subfactor at the
        usage its bound allows (its current one raised by what w0 may still grow) is 0,
        and a set within its bound is empty (`empty`: FairShare.empty, from scratch)."""
        if self.sets is None or total <= 0:
            return
        w0 = now_w.get(_SYSTEM, 0.0)
        for key, (b, t) in self.keys.items():
            if w0 <= b < _INF:
                used = (now_w.get(key, 0.0) + (b - w0)) + older.get(key, 0.0)
                assert self.subfactor(t, 100.0 * used / total, percent) == 0, (key, b)
        for creds, b in self.sets.items():
            if w0 <= b:
                assert empty(creds), creds


def key_until(t: FsTarget, w: float, f: float, total: float, w0: float,
              percent: bool, subfactor: Callable) -> float:
    """The bound for a key whose subfactor is 0 now (current-window usage w, older f, the
    system's total and current-window w0): w0 + D for the largest whole D found with the
    subfactor still 0 at w + D (fs_subfactor's floats, the total as now), w0 when none,
    infinity for a cap. O(1)."""
    if t.mode in ("capabs", "caprel"):
        return _INF
    if t.mode != "ceiling":
        return w0
    room = (t.value * total / 100.0 - w - f) * (1.0 - 1e-9)
    d = float(min(max(int(room) - 1, 0), int(EXACT))) if room == room and room < EXACT else 0.0
    if d > 0 and w + d < EXACT and w0 + d < EXACT \
            and subfactor(t, 100.0 * ((w + d) + f) / total, percent) == 0:
        return w0 + d
    return w0
