"""MRLMerge (Maui 3.3, src/MRes.c): two lists of start ranges summed into one, quirks and
all (merge, literal), and the same fold over many lists done as one sweep where the quirks
cannot arise (merge_all). planning/maui33.py rule 4 (MJobGetRange) folds every feasible
node's start ranges in node order with it.

A start range is [start, last start, tasks, nodes], closed. MRLMerge's quirks come from
instant ranges (start = last start: a node's place exactly as long as the job) and its
range limit (MAX_MRANGE); without either, folding the lists one after another gives, at
each instant where something starts or ends, the ranges ending there closed before those
starting there open, which a single sweep over all the lists' events gives too, in
O(E log E) for E ranges instead of O(lists x merged ranges) with Python's per-event cost
(tests/property/test_mrlmerge.py checks the two against each other).
"""

from __future__ import annotations

MAX_MTIME = 2140000000
"""Maui's end of time (include/msched-common.h): the end of a range open to the future."""
MAX_MRANGE = 256
"""Maui's range list length (include/msched.h): MRLMerge stops merging past it."""


_START, _END, _INSTANT, _NONE = range(4)


class _Merge:
    """MRLMerge's state: a cursor and a state (_START, _END, _INSTANT, _NONE) per list, the
    tasks and nodes open now, and the output C."""

    def __init__(self, r1: list[list[int]], r2: list[list[int]]):
        self.r = (r1, r2)
        self.i = [0, 0]
        self.s = [_START, _START]
        self.tc = self.nc = self.ci = 0
        self.C = [[0, 0, 0, 0]]         # grown as written: rows past it read all 0

    def at(self, k: int, state: int | None = None) -> int:
        """The next instant of list k (its range's start, or its end in _END)."""
        r, i = self.r[k], self.i[k]
        if i >= len(r):
            return MAX_MTIME + 1
        return r[i][1] if (self.s[k] if state is None else state) == _END else r[i][0]

    def cur(self, k: int) -> list[int] | None:
        return self.r[k][self.i[k]] if self.i[k] < len(self.r[k]) else None

    def advance(self, k: int) -> None:
        self.i[k] += 1
        self.s[k] = _START

    def row(self) -> list[int]:
        """Output row ci (Maui's C[ci]), all 0 until written."""
        C = self.C
        while len(C) <= self.ci:
            C.append([0, 0, 0, 0])
        return C[self.ci]

    def out(self, start: int | None = None, end: int | None = None, tasks=None) -> None:
        c = self.row()
        if start is not None:
            c[0] = start
        if end is not None:
            c[1] = end
        if tasks is not None:
            c[2], c[3] = tasks

    def open_again(self, e: int) -> None:
        if self.tc > 0:
            self.out(e, None, (self.tc, self.nc))


def _instant(m: _Merge, k: int, o: int, t: list[int], e: int) -> None:
    """MRLMerge's case of list k's range an instant at e, the other list o (t: the next
    instants), literal: k = 0 (the list merged so far) does not close a range open at e
    and an instant in both resets the count carried on; k = 1 does both as it should."""
    a, b = m.cur(k), m.cur(o)
    if m.s[o] == _END and t[o] == e:
        m.out(None, e)
        m.ci += 1
        old = (m.tc, m.nc)
        m.tc -= b[2]
        m.nc -= b[3]
        m.advance(o)
        m.out(e)
        t[o] = m.at(o, _START)
        if t[o] == e:
            nb = m.cur(o)
            m.out(tasks=(a[2] + nb[2], a[3] + nb[3]))
            if t[o] == nb[1]:
                if k == 0:
                    m.tc = m.nc = 0
                m.advance(o)
        else:
            m.out(tasks=(a[2] + old[0], a[3] + old[1]))
        m.out(None, e)
    elif k == 0:
        m.out(e, e)
        if m.s[o] == _INSTANT:
            m.out(tasks=(a[2] + b[2], a[3] + b[3]))
            m.tc = m.nc = 0
            m.advance(o)
        elif m.s[o] == _START and t[o] == e:
            m.out(tasks=(a[2] + b[2], a[3] + b[3]))
        else:
            m.out(tasks=(m.tc + a[2], m.nc + a[3]))
    else:
        if m.tc > 0:
            m.out(None, e)
            m.ci += 1
        m.out(e)
        if m.s[o] == _START and t[o] == e:
            m.out(tasks=(a[2] + b[2], a[3] + b[3]))
        else:
            m.out(tasks=(m.tc + a[2], m.nc + a[3]))
        m.out(None, e)
    m.advance(k)
    m.ci += 1
    m.open_again(e)


def _step(m: _Merge) -> None:
    """One event of MRLMerge's loop: an instant, else the ends at the earliest time,
    else the starts at it."""
    for k in (0, 1):
        if m.i[k] >= len(m.r[k]):
            m.s[k] = _NONE
    t = [m.at(0), m.at(1)]
    e = min(t)
    for k in (0, 1):
        r = m.cur(k)
        if r is not None and r[1] == e and r[0] == e:
            m.s[k] = _INSTANT
    inst = [m.s[k] == _INSTANT and t[k] == e for k in (0, 1)]
    if inst[0] or inst[1]:
        _instant(m, 0 if inst[0] else 1, 1 if inst[0] else 0, t, e)
        return
    ends = [m.s[k] == _END and t[k] == e for k in (0, 1)]
    if ends[0] or ends[1]:
        m.out(None, e)
        m.ci += 1
        for k in (0, 1):
            if ends[k]:
                r = m.cur(k)
                m.tc -= r[2]
                m.nc -= r[3]
                m.advance(k)
        m.open_again(e)
        return
    if m.tc > 0 and e > m.row()[0]:
        m.out(None, e)
        m.ci += 1
    for k in (0, 1):
        if m.s[k] == _START and t[k] == e:
            r = m.cur(k)
            m.tc += r[2]
            m.nc += r[3]
            m.s[k] = _END
    m.open_again(e)


def merge(r1: list[list[int]], r2: list[list[int]]) -> list[list[int]]:
    """MRLMerge (src/MRes.c): two lists of closed start ranges [start, end, tasks, nodes]
    summed into one, as Maui merges them, quirks included: ranges that end at t are
    closed before those that start at t are opened (so t counts only the latter), an
    instant range of r1 (the list merged so far) drops the part before it of a range of
    r2 open across it, and the list stops at MAX_MRANGE. _step's loop with its reads
    inlined and its state in local variables, handed to _instant through a _Merge at an
    instant (a MAUICOMPAT 3.3 re-make merges some 18 pairs, ~30 steps each;
    tests/property/test_mrlmerge_memo.py checks it against merge_literal, the
    transcription). O(len(r1) + len(r2))."""
    n0, n1 = len(r1), len(r2)
    i0 = i1 = tc = nc = ci = 0
    s0 = s1 = _START
    C = [[0, 0, 0, 0]]
    m = None
    while i0 < n0 or i1 < n1:
        if ci >= MAX_MRANGE:
            break
        while len(C) <= ci + 1:         # rows ci and ci + 1 may be written this step
            C.append([0, 0, 0, 0])
        if i0 < n0:
            c0 = r1[i0]
            t0 = c0[1] if s0 == _END else c0[0]
        else:
            c0, s0, t0 = None, _NONE, MAX_MTIME + 1
        if i1 < n1:
            c1 = r2[i1]
            t1 = c1[1] if s1 == _END else c1[0]
        else:
            c1, s1, t1 = None, _NONE, MAX_MTIME + 1
        e = t0 if t0 < t1 else t1
        if c0 is not None and c0[1] == e and c0[0] == e:
            s0 = _INSTANT
        if c1 is not None and c1[1] == e and c1[0] == e:
            s1 = _INSTANT
        if (s0 == _INSTANT and t0 == e) or (s1 == _INSTANT and t1 == e):
            if m is None:
                m = _Merge(r1, r2)
                m.C = C
            m.i[0], m.i[1], m.s[0], m.s[1] = i0, i1, s0, s1
            m.tc, m.nc, m.ci = tc, nc, ci
            k = 0 if s0 == _INSTANT and t0 == e else 1
            _instant(m, k, 1 - k, [t0, t1], e)
            (i0, i1), (s0, s1), tc, nc, ci = m.i, m.s, m.tc, m.nc, m.ci
            continue
        end0 = s0 == _END and t0 == e
        end1 = s1 == _END and t1 == e
        if end0 or end1:
            C[ci][1] = e
            ci += 1
            if end0:
                tc -= c0[2]
                nc -= c0[3]
                i0 += 1
                s0 = _START
            if end1:
                tc -= c1[2]
                nc -= c1[3]
                i1 += 1
                s1 = _START
        else:
            if tc > 0:
                row = C[ci]
                if e > row[0]:
                    row[1] = e
                    ci += 1
            if s0 == _START and t0 == e:
                tc += c0[2]
                nc += c0[3]
                s0 = _END
            if s1 == _START and t1 == e:
                tc += c1[2]
                nc += c1[3]
                s1 = _END
        if tc > 0:
            row = C[ci]
            row[0], row[2], row[3] = e, tc, nc
    return _read(C, ci)


def merge_literal(r1: list[list[int]], r2: list[list[int]]) -> list[list[int]]:
    """merge by _step, the transcription of MRLMerge's loop read event by event: the
    definition merge is checked against."""
    return _run(_Merge(r1, r2), _step)


def _run(m: _Merge, step) -> list[list[int]]:
    """MRLMerge's loop with `step` until both lists are done or the list is full, and
    its result as Maui reads it. O(len(r1) + len(r2))."""
    r1, r2 = m.r
    while m.i[0] < len(r1) or m.i[1] < len(r2):
        if m.ci >= MAX_MRANGE:
            break
        step(m)
    return _read(m.C, m.ci)


def _read(C: list[list[int]], ci: int) -> list[list[int]]:
    """MRLMerge's result as Maui reads it: rows up to ci (and the limit), up to the first
    whose end is 0 (unwritten). O(rows)."""
    out = []
    for r in C[:min(ci, MAX_MRANGE - 1)]:
        if r[1] == 0:
            break                       # Maui's list ends at the first EndTime 0
        out.append(r)
    return out




def sweep(lists: list[list[list[int]]]) -> list[list[int]] | None:
    """The fold of merge over `lists` (from the empty list), as one sweep: None when a
    list holds an instant range or the result comes near MAX_MRANGE (then only the
    literal fold says what Maui does). Each merged row is the span between two
    consecutive instants where something starts or ends, with what is open after the
    first (ends before starts), rows holding nothing left out; a fold's intermediate
    list has at most as many rows as its end, so none of them reached the limit either.
    Lists given more than once (the same object) are counted once, times their number.
    O(E log E), E the ranges of the distinct lists."""
    times: dict[int, list[int]] = {}
    seen: dict[int, list] = {}
    for s in lists:
        got = seen.get(id(s))
        if got is None:
            seen[id(s)] = [s, 1]
        else:
            got[1] += 1
    for s, n in seen.values():
        for r in s:
            a, b = r[0], r[1]
            if a >= b:
                return None
            ev = times.get(a)
            if ev is None:
                ev = times[a] = [0, 0]
            ev[0] += n * r[2]
            ev[1] += n * r[3]
            ev = times.get(b)
            if ev is None:
                ev = times[b] = [0, 0]
            ev[0] -= n * r[2]
            ev[1] -= n * r[3]
    out: list[list[int]] = []
    tc = nc = 0
    row = None
    for t in sorted(times):
        dt, dn = times[t]
        if row is not None:
            row[1] = t
            out.append(row)
            row = None
        tc += dt
        nc += dn
        if tc > 0:
            row = [t, 0, tc, nc]
    if len(out) >= MAX_MRANGE - 2:
        return None
    return out


def merge_all(lists: list[list[list[int]]]) -> list[list[int]]:
    """MRLMerge folded over `lists` in order, from the empty list (MJobGetRange): the
    lists before the first that holds an instant range by sweep, the rest one at a time
    by merge, so that the quirks apply where Maui applies them. O(E log E + the lists from
    the first instant on x merged ranges)."""
    k = 0
    while k < len(lists) and all(r[0] != r[1] for r in lists[k]):
        k += 1
    g = sweep(lists[:k]) if k else []
    if g is None:
        g, k = [], 0
    for s in lists[k:]:
        g = merge(g, s)
    return g


_AT = 1
"""The instant `now` stands at in a canonical list (merge_all_at): below every other instant
of the lists (all at or after now) and above 0, Maui's mark of an unwritten range end."""
_TOKENS: dict[tuple, tuple[int, list]] = {}
"""A canonical list's content -> (its token, the one list object of that content)."""
_SWEPT: dict[tuple[int, ...], tuple[int, list[list[int]]]] = {}
"""The tokens of the lists before the first instant -> (token, merge_all's sweep of them)."""
_FOLDED: dict[tuple[int, int], tuple[int, list[list[int]]]] = {}
"""(token of the list merged so far, token of the next list) -> (token, their merge)."""
_BY_ID: dict[int, tuple] = {}
"""id(list) -> (the list, now, _canonical's answer): kept alive so an id is not reused."""
_MEMO_MAX = 1 << 16


def _canonical(s: list[list[int]], now: int) -> tuple[int, list[list[int]], bool]:
    """(token, shared object, whether it holds an instant range) of list s with `now`
    written as _AT; a list object met again at the same `now` (nodes alike share one)
    answered by its id. O(len(s))."""
    seen = _BY_ID.get(id(s))
    if seen is not None and seen[0] is s and seen[1] == now:
        return seen[2]
    key = tuple((_AT if r[0] == now else r[0], _AT if r[1] == now else r[1], r[2], r[3])
                for r in s)
    got = _TOKENS.get(key)
    if got is None:
        got = _TOKENS[key] = (len(_TOKENS) + 1, [list(r) for r in key],
                              any(r[0] == r[1] for r in key))
    _BY_ID[id(s)] = (s, now, got)
    return got


def merge_all_at(lists: list[list[list[int]]], now: int) -> list[list[int]]:
    """merge_all(lists) for node start ranges that all lie at or after `now`, remembered
    across calls: MRLMerge only compares instants (and with 0 and MAX_MTIME), so with
    `now` written as _AT the merge of the same lists is the same whatever `now` is, and a
    list that did not change between two seconds is the same canonical list, its fold
    with the same list merged so far a memo hit (a rotation moves a few reservations a
    second: the nodes before the first it touches are folded once). The result is
    shared: read, never written. O(N) dict look-ups plus the merges of the lists from
    the first one changed on; merge_all itself where now <= _AT or a list starts before
    now."""
    if now <= _AT or any(r[0] < now for s in lists for r in s[:1]):
        return merge_all(lists)
    if max(len(_TOKENS), len(_FOLDED), len(_BY_ID)) > _MEMO_MAX:
        _BY_ID.clear()
        _TOKENS.clear()
        _SWEPT.clear()
        _FOLDED.clear()
    canon = [_canonical(s, now) for s in lists]
    k = 0
    while k < len(canon) and not canon[k][2]:
        k += 1
    key = tuple(c[0] for c in canon[:k])
    got = _SWEPT.get(key)
    if got is None:
        g = sweep([c[1] for c in canon[:k]]) if k else []
        if g is None:
            g, k, key = [], 0, ()
            got = _SWEPT.get(key) or (0, g)
        else:
            got = _SWEPT[key] = (-(len(_SWEPT) + 1), g)
    tok, g = got
    for c in canon[k:]:
        step = _FOLDED.get((tok, c[0]))
        if step is None:
            step = _FOLDED[(tok, c[0])] = (len(_FOLDED) + 1 + (1 << 40), merge(g, c[1]))
        tok, g = step
    k = 0
    while k < len(g) and g[k][0] == _AT:
        k += 1
    return [[now, now if r[1] == _AT else r[1], r[2], r[3]] for r in g[:k]] + g[k:]
