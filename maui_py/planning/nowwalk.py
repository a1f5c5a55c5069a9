"""LASTAVAILABLE start-now choices read from a kept order of the partly used nodes' change
points (issue 33): a first cycle's start-now questions each take one or two of some 40 to
90 partly used nodes, yet lastnow.last_now works out the fit and key of every one of them
(Compiling._keyed_now) before popping the best (nodechoice._pop_take).

The table keeps one order (NowOrder): for every node entered, each change point t of its
step function as (t, node), sorted. A node's first entry at or after e, the job's end, is
the change point its key (gap, fit, node) is measured to, so walking the order from e,
a node's first entry met, skipping nodes outside the question's `others` (now_sets) or
whose fit (the flat-fit memo, else Compiling._fit_missed: _keyed_now's own numbers) is
below per_node, and sorting the nodes met at one instant by (fit, node), yields
_keyed_now's triples in the order the heap pops them. walk_take takes them as _pop_take
does and answers only when that covers the request with every gap below the idle nodes'
bound: _pop_take's own answer, and the request then fits, as _enough asks. Anything else
(a gap at the bound, the order run out, a long walk) returns None and the caller asks the
definition. Nodes enter when a question's `others` holds them, from the WARM + 1-th
question at an origin on; a node whose step function changes leaves (Timeline._splice
logs it); advance and a fresh load drop the order.

WALK switches it (False: last_now's walk over every partly used node, the definition
tests/property/test_cyc55_now_walk.py compares against). Cost: O(log n + entries walked)
plus O(h log n) per node entered or left, for n entries, instead of O(k log h) for the k
partly used nodes."""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import Any

from .api import FOREVER, Compiled
from .bitset import members
from .nodechoice import idle_key, idle_nodes

WALK = True
"""Take start-now choices from the kept order when it settles them (module docstring)."""
VISITS = 48
"""Entries walked at most before the definition is asked instead."""
WARM = 8
"""Start-now questions at one origin answered by the definition before the order is made
(the nodes entered): a replay's cycle asks a few, and entering every partly used node
for them costs more than their walks (a first cycle asks thousands)."""
LOG_MAX = 4096
"""Logged node changes kept before the log is emptied (the order takes them in first)."""

Table = Any
"""A ReservationTable (planning/table.py imports this module: not imported here)."""


class NowOrder:
    """`entries`: (t, node) for each change point t of each node entered, sorted; `nodes`:
    node -> the step function's T it was entered with; `known`: those nodes as a set;
    `log`: lists of nodes whose step function changed (Timeline._splice appends them
    while any node is entered); `pos`: how far the log has been taken in."""

    __slots__ = ("entries", "nodes", "known", "log", "pos", "asked")

    def __init__(self) -> None:
        self.entries: list[tuple[int, int]] = []
        self.nodes: dict[int, list[int]] = {}
        self.known = 0
        self.log: list[list[int]] = []
        self.pos = 0
        self.asked = 0
        """Questions seen (WARM)."""

    def enter(self, T: list[int], i: int) -> None:
        """Node i, of step function T, in. O(h log n)."""
        self.nodes[i] = T
        self.known |= 1 << i
        entries = self.entries
        for t in T[1:]:
            insort(entries, (t, i))

    def leave(self, i: int) -> None:
        """Node i out. O(h log n)."""
        T = self.nodes.pop(i)
        self.known ^= 1 << i
        entries = self.entries
        for t in T[1:]:
            del entries[bisect_left(entries, (t, i))]

    def catch_up(self) -> None:
        """Take in the nodes changed since `pos` (lists of nodes): those entered leave;
        the log is emptied when past LOG_MAX. O(changes)."""
        nodes, log = self.nodes, self.log
        for changed in log[self.pos:]:
            for i in changed:
                if i in nodes:
                    self.leave(i)
        if len(log) > LOG_MAX:
            log.clear()
        self.pos = len(log)

    def check(self, table: Table) -> None:
        """Assert that every node entered and not logged as changed since `pos` has its
        present step function, the entries are exactly the change points of the step
        functions entered, sorted, and `known` is their set. O(entries + log)."""
        log = self.log
        assert self.pos <= len(log), "log position past the log"
        pending = {i for changed in log[self.pos:] for i in changed}
        want = []
        for i, T in self.nodes.items():
            assert i in pending or T is table._T[i], "a changed node left in the order"
            want.extend((t, i) for t in T[1:])
        assert self.entries == sorted(want), "entries not the nodes' change points"
        assert self.known == sum(1 << i for i in self.nodes), "known set"


def walk_take(table: Table, cr: Compiled, e: int, others: int, fast: int, gap_stop: int
              ) -> list[tuple[int, int]] | None:
    """take_last_now's answer over _keyed_now(cr, others, e)'s triples and the idle nodes
    of `fast` (none with a change point after the origin; gap_stop: idle_gap at e), from
    the kept order when it settles it, else None (module docstring). O(log n + entries
    walked + idle nodes taken) plus the nodes entered."""
    o = table._now_order
    if o.asked < WARM:
        o.asked += 1
        return None
    if o.pos < len(o.log):
        o.catch_up()
    tt = table._T
    new = others ^ (others & o.known)
    if new:
        if new & (new - 1):
            for i in members(new):
                o.enter(tt[i], i)
        else:                           # one node, as after most starts
            i = new.bit_length() - 1
            o.enter(tt[i], i)
    last = idle_key(fast, gap_stop)     # the gap every idle node is keyed with
    entries = o.entries
    d, exclusive, per = cr.d, cr.exclusive, cr.per_node
    flat = table._flat_for(d, exclusive)
    tpn = cr.mode == "tpn"
    left = cr.nodes_needed if tpn else cr.tasks
    seen: set[int] = set()
    out: list[tuple[int, int]] = []
    k = bisect_left(entries, (e,))
    n = len(entries)
    stop = k + VISITS
    while k < n:
        t = entries[k][0]
        group = []
        while k < n and entries[k][0] == t:     # the nodes met at t
            if k >= stop:
                return None
            i = entries[k][1]
            k += 1
            if i in seen or not (others >> i) & 1:
                continue
            seen.add(i)
            T = tt[i]
            got = flat.get(i)
            if got is not None and got[0] is T:
                f = got[1]
            else:
                f = table._fit_missed(i, T, e, d, exclusive, flat)
            if f >= per:
                group.append((f, i))
        if group:
            gap = t - e if t < FOREVER else FOREVER
            if gap >= last:
                if gap == last:     # ties with the idle nodes' keys: not settled here
                    return None
                break                   # every idle node ranks before these
            group.sort()
            for f, i in group:
                take = per if tpn else min(f, left)
                out.append((i, take))
                left -= 1 if tpn else take
                if left <= 0:
                    return out
    else:       # the order run out: nodes of `others` left have gap FOREVER
        if last == FOREVER:
            return None
    for f, i in idle_nodes(cr, fast):   # then the idle nodes, until the request is covered
        take = per if tpn else min(f, left)
        out.append((i, take))
        left -= 1 if tpn else take
        if left <= 0:
            return out
    return None

