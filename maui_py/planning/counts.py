"""The count planner: free processors over time as one step function, for a cluster whose
nodes are all alike and whose queued jobs all ask for plain one-processor tasks.

On such a cluster the question "when do n processors stay free for w seconds?" has the
same answer whatever nodes the holds sit on: holds are intervals on identical processors,
and intervals fit on m processors exactly when no instant has more than m of them (interval
graphs are perfect; greedy colouring in start order never needs more). So the planner keeps
one profile of held processors and chooses concrete nodes only for what holds processors
now: a job that starts, or a reservation whose start has come. A reservation in the future
holds a count, not nodes: that is what lets backfill use every processor a node-specific
reservation would have pinned needlessly (docs/algorithms.md, "Counting").

It implements the Planner protocol (planning/api.py) as ReservationTable
(planning/table.py) does, so the cycle runs on either; planning/sync.py picks this one when
`counting_applies` holds and falls back to the node table as soon as a request needs node
identities (features, host lists, whole nodes, tasks per node, node counts, memory, gres).

P change points, H holds, N nodes, k nodes in a start.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from heapq import heappop, heappush
from itertools import accumulate
from typing import Iterable, Sequence

from ..cfg.choices import NodeAllocation
from ..model import JobRequest, Node, Resources
from . import endheap
from .api import FOREVER, Ability, Compiled, NoPlacement, OverAllocation, Placement, Window
from .applies import counting_applies, counts_request  # noqa: F401 (re-exported)
from .countplan import CountHold, Replanning, add_step
from .owners import is_priority
from .table import index_nodes

_ONE = (1,)


class CountTable(Replanning, endheap.EndQuestions):
    """Held processors over time on identical nodes; concrete nodes only for what runs now."""

    abilities: frozenset[str] = frozenset({Ability.COUNTS, Ability.REPLAN})

    def __init__(self, nodes: Sequence[Node], origin: int):
        """An empty table. O(N)."""
        self.origin = int(origin)
        self.nodes: tuple[Node, ...] = tuple(nodes)
        self.index = index_nodes(self.nodes)
        n = len(self.nodes)
        self.per_node = self.nodes[0].resources.procs if n else 0
        self.total = self.per_node * n
        self.all_mask = self.usable = (1 << n) - 1
        self.dims: tuple[str, ...] = ("procs",)
        self.holds: dict[str, CountHold] = {}
        self._times: list[int] = []
        self._deltas: list[int] = []
        """Change points after the origin and the change of held processors at each."""
        self._rises: list[int] = []
        """Change points whose change is positive: after a window's last rise held
        processors only fall, so the window needs no look past it."""
        self.free_now = self.total
        """Processors free at the origin: the O(1) test backfill starts from."""
        self.used0 = 0
        self._ends: list[tuple[int, str]] = []
        """A heap of (end, owner), stale entries (released holds) left in place and skipped:
        holds are made and dropped far more often than they end. Compacted when it holds
        twice as many entries as there are holds."""
        self.node_free: list[int] = [self.per_node] * n
        self._free_mask = (1 << n) - 1 if self.per_node else 0
        """Bit i set: node i has a free processor now (an int: O(N/64) words per update)."""
        self.overcommitted: set[int] = set()
        self._unclaimed: set[str] = set()
        """Holds with nodes named for a later start: they take the nodes when it comes."""
        self.freed = 0
        self._freed_log: list[tuple[int, int]] = []
        """(`freed` after a step, the latest instant the step may have freed): what
        `freed_until` reads. A step that freed nothing after the origin logs the origin;
        one that cannot be bounded (a forced hold, a load) logs FOREVER. The older half goes
        when it passes _LOG entries."""
        self._tracking = False
        """Whether the three fields below are kept: from the first replan on (EASY never
        asks for one, and does not pay for them)."""
        self._other: dict[int, int] = {}
        self._other0 = 0
        """The profile of the holds that are not priority reservations, kept as they come
        and go: {instant: change of held processors}, instants at or before the origin
        folded into _other0 when replan reads it. What replan starts from."""
        self._n_priority = 0
        self._bounds: dict[int, int] = {}
        """{instant: how many priority reservations start or end there}: the instants
        replan's array must have (a search and a subtraction each go bound to bound)."""
        self.version = 0
        self._compiled: dict[JobRequest, NoPlacement] = {}
        self._by_tasks: dict[int, Compiled] = {}
        self._res: dict[int, Resources] = {}

    # ------------------------------------------------------------------ views
    @property
    def used0(self) -> int:
        """Processors held at the origin (free_now is what is left of the cluster)."""
        return self._used0

    @used0.setter
    def used0(self, v: int) -> None:
        self._used0 = v
        self.free_now = self.total - v

    def _resources(self, k: int) -> Resources:
        r = self._res.get(k)
        if r is None:
            r = self._res[k] = Resources(procs=k)
        return r

    # --------------------------------------------------------------- profile
    def _point(self, t: int, d: int) -> None:
        times = self._times
        i = bisect_left(times, t)
        if i < len(times) and times[i] == t:
            old = self._deltas[i]
            v = old + d
            if v:
                self._deltas[i] = v
            else:
                del times[i]
                del self._deltas[i]
            if (old > 0) != (v > 0):
                rises = self._rises
                if v > 0:
                    rises.insert(bisect_left(rises, t), t)
                else:
                    del rises[bisect_left(rises, t)]
        else:
            times.insert(i, t)
            self._deltas.insert(i, d)
            if d > 0:
                self._rises.insert(bisect_left(self._rises, t), t)

    def _max_used(self, s: int, e: int) -> int:
        """Most processors held at any instant of [s, e). O(P), the window's points
        summed at C speed."""
        times, deltas = self._times, self._deltas
        k = bisect_right(times, s)
        u = self.used0 + sum(deltas[:k])
        j = bisect_left(times, e, k)
        if j > k:
            top = u + max(accumulate(deltas[k:j]))
            return top if top > u else u
        return u

    # ------------------------------------------------------------ concrete nodes
    def _take(self, alloc: Iterable[tuple[int, int]]) -> None:
        free = self.node_free
        full = 0
        for i, k in alloc:
            before = free[i]
            left = free[i] = before - k
            if left < 0:
                self.overcommitted.add(i)
            if before > 0 >= left:
                full |= 1 << i
        if full:
            self._free_mask &= ~full

    def _give(self, alloc: Iterable[tuple[int, int]]) -> None:
        free = self.node_free
        back = 0
        for i, k in alloc:
            before = free[i]
            free[i] = before + k
            if before <= 0 < before + k:
                back |= 1 << i
        self._free_mask |= back

    def _choose(self, procs: int) -> tuple[tuple[int, int], ...] | None:
        """Processors free now, filling nodes in index order: a run of nodes with free
        processors at a time (big-int operations per run, not per node). O(k + runs N/64)."""
        out = []
        left = procs
        free = self.node_free
        m = self._free_mask
        while m and left:
            i = (m & -m).bit_length() - 1
            x = m >> i
            run = ((x + 1) & ~x).bit_length() - 1
            for j in range(i, i + run):
                k = free[j] if free[j] < left else left
                out.append((j, k))
                left -= k
                if not left:
                    break
            m = (x >> run) << (i + run)
        return tuple(out) if not left else None

    def _alloc(self, chosen: tuple[tuple[int, int], ...]) -> tuple[tuple[str, Resources], ...]:
        nodes, res = self.nodes, self._res
        return tuple((nodes[i].name, res[k] if k in res else self._resources(k)) for i, k in chosen)

    # ----------------------------------------------------------------- holds
    def reserve(self, owner: str, start: int, end: int,
                allocation: Iterable[tuple[str, Resources]], kind: str = "job",
                force: bool = False, inside: Iterable[str] = (), procs: int | None = None,
                checked: bool = False) -> None:
        """Hold `allocation` (or `procs` processors on no node yet) over [start, end).

        A hold that covers the origin takes its nodes' processors now. KeyError if the
        owner already holds something, OverAllocation if the processors are not free (unless
        `force`: running jobs as reported; `checked`: a placement just computed on this very
        table state). `inside` is accepted for the node table's signature; no reservation
        other than jobs' exists under this planner. O(P + k log N).
        """
        if owner in self.holds:
            raise KeyError(f"{owner!r} already holds resources; release it first")
        allocation = tuple(allocation)
        items = []
        if allocation:
            merged: dict[int, int] = {}
            for name, res in allocation:
                i = self.index.get(name)
                if i is None:
                    raise KeyError(f"unknown node {name!r}")
                merged[i] = merged.get(i, 0) + res.procs
            items = list(merged.items())
            n = sum(k for _, k in items)
        else:
            n = int(procs or 0)
        s = max(int(start), self.origin)
        end = int(end)
        if end <= s or n <= 0:
            return
        concrete = s <= self.origin and bool(items)
        if not force and not checked:
            if self._max_used(s, end) + n > self.total:
                raise OverAllocation(f"{owner}: {n} processors are not free over [{s}, {end})")
            if concrete and any(self.node_free[i] < k for i, k in items):
                raise OverAllocation(f"{owner}: a node of its allocation is busy now")
        else:
            self._freed_step(FOREVER if force else self.origin)
        nodes = tuple(items) if concrete else ()
        if items and not nodes:
            self._unclaimed.add(owner)
        self._add(CountHold(owner, kind, s, end, n, nodes, allocation))

    def _add(self, h: CountHold) -> None:
        """Enter a hold whose room is settled: the profile, the nodes it takes now, the
        registry and the end heap. O(P + k)."""
        if h.start <= self.origin:
            self.used0 += h.procs
        else:
            self._point(h.start, h.procs)
        self._point(h.end, -h.procs)
        if h.nodes:
            self._take(h.nodes)
        self.holds[h.owner] = h
        heappush(self._ends, (h.end, h.owner))
        self.version += 1
        if self._tracking:
            self._track(h, 1)


    def reserve_placement(self, owner: str, p: Placement, kind: str = "job",
                          inside: Iterable[str] = ()) -> None:
        """reserve() for a Placement this table computed; when the table has not changed
        since, the room check is skipped (it was the scan's), and a start now takes the
        nodes it chose by index. O(P + k log N); O(P + k) for such a start."""
        items = p.items
        if items and p.version == self.version and owner not in self.holds:
            self._hold_now(owner, kind, p.start, p.end, items, p.allocation)
            return
        procs = p.count or None
        self.reserve(owner, p.start, p.end, p.allocation, kind, procs=procs,
                     checked=p.version == self.version)

    def _hold_now(self, owner: str, kind: str, start: int, end: int,
                  chosen: tuple[tuple[int, int], ...],
                  allocation: tuple[tuple[str, Resources], ...]) -> None:
        """reserve() of a start now this table chose, unchanged since: the node indices
        are the choice's, not looked up again by name. O(P + k)."""
        n = 0
        for _i, k in chosen:
            n += k
        self._freed_step(self.origin)
        self._add(CountHold(owner, kind, start, end, n, chosen, allocation))

    def release(self, owner: str) -> bool:
        """Drop what `owner` holds; False when it held nothing. O(P + k log N)."""
        h = self.holds.pop(owner, None)
        if h is None:
            return False
        self._unclaimed.discard(owner)
        if h.start <= self.origin:
            self.used0 -= h.procs
        else:
            self._point(h.start, -h.procs)
        self._point(h.end, h.procs)
        if h.nodes:
            self._give(h.nodes)
        if self._tracking:
            self._track(h, -1)
        self._ends = endheap.compacted(self._ends, self.holds)
        self._freed_step(h.end)
        self.version += 1
        return True

    def load(self, holds: Iterable[tuple[str, int, int, Iterable[tuple[str, Resources]], str]]
             ) -> None:
        """Record holds as reported (no room check). O(H (P + k log N))."""
        for owner, start, end, allocation, kind in holds:
            self.reserve(owner, start, end, allocation, kind, force=True)
        self._freed_step(FOREVER)
        self.version += 1

    def next_change(self) -> float:
        """The first time after the origin at which held processors change or a hold
        ends (inf when none). O(1)."""
        t = self._times[0] if self._times else float("inf")
        ends = self._ends
        while ends and not endheap.live(self.holds, ends[0]):
            heappop(ends)
        if ends and ends[0][0] < t:
            t = ends[0][0]
        return t

    def advance(self, now: int) -> list[str]:
        """Move the origin to `now`; returns owners whose holds ended by then (what they
        held counts as freed: kept reservations are re-made). Amortised
        O(log P) per point passed and O(k log N) per expired hold."""
        if now <= self.origin:
            return []
        self.version += 1
        times = self._times
        k = bisect_right(times, now)
        if k:
            self.used0 += sum(self._deltas[:k])
            del times[:k]
            del self._deltas[:k]
            del self._rises[:bisect_right(self._rises, now)]
        self.origin = now
        expired = []
        ends = self._ends
        while ends and ends[0][0] <= now:
            entry = heappop(ends)
            if not endheap.live(self.holds, entry):
                continue
            owner = entry[1]
            h = self.holds.pop(owner)
            self._unclaimed.discard(owner)
            if h.nodes:
                self._give(h.nodes)
            if self._tracking and is_priority(owner):
                self._n_priority -= 1
                add_step(self._bounds, h.start, -1)
                add_step(self._bounds, h.end, -1)
            expired.append(owner)
        if len(self._other) + len(self._bounds) > 4 * len(self.holds) + 64:
            self._fold_other()
        if expired:
            self._freed_step(now)
        for owner in sorted(self._unclaimed):
            h = self.holds[owner]
            if h.start <= now:
                self._unclaimed.discard(owner)
                self._claim(h)
        return expired

    def _claim(self, h: CountHold) -> None:
        """A reservation with nodes whose start has come takes them when they are free."""
        merged: dict[int, int] = {}
        for name, res in h.allocation:
            i = self.index[name]
            merged[i] = merged.get(i, 0) + res.procs
        if all(self.node_free[i] >= k for i, k in merged.items()):
            h.nodes = tuple(merged.items())
            self._take(h.nodes)

    # --------------------------------------------------------------- requests
    def compile(self, req: JobRequest, job_class: str = "",
                exclusive: bool | None = None) -> Compiled | NoPlacement:
        """The request as a count, or why it can never fit. O(1). One that fits is keyed by
        its task count alone (all a count needs; Compiled.request is read by no one): equal
        requests are distinct objects, one per job, and a JobRequest's hash walks fields."""
        if exclusive or not counts_request(req):
            raise ValueError("the count planner answers only one-processor tasks")
        tasks = req.tasks
        if tasks <= self.total:
            got = self._by_tasks.get(tasks)
            if got is None:
                got = self._by_tasks[tasks] = Compiled(req, _ONE, tasks, "any", 1, 0, False,
                                                       self.usable, [])
            return got
        got = self._compiled.get(req)
        if got is None:
            got = self._compiled[req] = NoPlacement(
                f"wider than the cluster: {tasks} tasks of {req.per_task} asked, the eligible "
                f"nodes hold at most {self.total}")
        return got

    def scan_count(self, need: int, wallclock: int, after: int | None = None,
                   until: int | None = None, skip: CountHold | None = None) -> int | None:
        """Earliest change point t in [after, until] with `need` processors free over the
        whole of [t, t + wallclock), or None. Each point is passed at most twice: O(P).
        A window that fits is checked by one running sum at C speed (itertools.accumulate),
        not a Python step a point: a start-now question in a full first cycle spans about
        half the profile's points; the Python walk only finds where a failing window fails.
        Only the points up to the window's last rise are summed: none when it has no rise."""
        w = max(int(wallclock), 1)
        limit = self.total - need
        if limit < 0:
            return None
        times, deltas, rises = self._times, self._deltas, self._rises
        if skip is not None:
            rises = None
            merged = dict(zip(times, deltas))
            for t, d in ((skip.start, -skip.procs), (skip.end, skip.procs)):
                if t > self.origin:
                    merged[t] = merged.get(t, 0) + d
            pts = sorted((t, d) for t, d in merged.items() if d)
            times, deltas = [t for t, _ in pts], [d for _, d in pts]
        origin = self.origin
        t = origin if after is None or after < origin else int(after)
        k = bisect_right(times, t)
        u = self.used0 + (sum(deltas[:k]) if k else 0)
        if skip is not None and skip.start <= origin:
            u -= skip.procs
        n = len(times)
        while True:
            if u <= limit:
                e = t + w
                end = bisect_left(times, e, k)
                if rises is not None:   # held processors only fall after the last rise
                    r = bisect_left(rises, e)
                    end = bisect_right(times, rises[r - 1], k) if r and rises[r - 1] > t else k
                if end == k or u + max(accumulate(deltas[k:end])) <= limit:
                    return t        # the whole window fits: checked at C speed
                j, uu = k, u
                while j < n and times[j] < e:
                    uu += deltas[j]
                    if uu > limit:
                        break
                    j += 1
                else:
                    return t
                t, u, k = times[j], uu, j + 1
            else:
                if k >= n:
                    return None
                t = times[k]
                u += deltas[k]
                k += 1
            if until is not None and t > until:
                return None

    def earliest_start(self, request: JobRequest | Compiled, wallclock: int,
                       after: int | None = None, *, policy: NodeAllocation, until: int | None = None,
                       ignore: Iterable[str] = (), job_class: str = "", exclusive: bool | None = None
                       ) -> Placement | NoPlacement:
        """The earliest start at or after `after` (default: now). A start now comes with
        the nodes to use (free processors in node order: on identical nodes any choice is as
        good, so NODEALLOCATIONPOLICY has nothing to choose); a later one with none, only the
        count. O(P) plus O(k log N) for a start now."""
        cr = request if isinstance(request, Compiled) else self.compile(request, job_class,
                                                                       exclusive)
        if isinstance(cr, NoPlacement):
            return cr
        skip = None
        for o in ignore:
            h = self.holds.get(o)
            if h is not None:
                skip = h
                break
        w = max(int(wallclock), 1)
        t = self.scan_count(cr.tasks, w, after, until, skip)
        if t is None:
            if until is not None:
                return NoPlacement("does not fit by the time asked")
            return NoPlacement("never fits on the nodes that are up (reservations block it)")
        if t <= self.origin:
            if skip is not None and skip.nodes:
                self._give(skip.nodes)
                chosen = self._choose(cr.tasks)
                self._take(skip.nodes)
            else:
                chosen = self._choose(cr.tasks)
            if chosen is not None:
                return Placement(t, t + w, self._alloc(chosen), chosen, self.version)
            if until is not None:
                return NoPlacement("does not fit by the time asked")
            t = self.scan_count(cr.tasks, w, self.origin + 1, None, skip)
            if t is None:
                return NoPlacement("never fits on the nodes that are up (reservations block it)")
        return Placement(t, t + w, (), (), self.version, cr.tasks)

    def fits(self, allocation: Iterable[tuple[str, Resources]], start: int, end: int) -> bool:
        """Would holding exactly `allocation` over [start, end) fit now? O(P + k)."""
        allocation = tuple(allocation)
        s = max(start, self.origin)
        n = 0
        for name, res in allocation:
            i = self.index.get(name)
            if i is None:
                return False
            if s <= self.origin and self.node_free[i] < res.procs:
                return False
            n += res.procs
        return self._max_used(s, end) + n <= self.total

    # ----------------------------------------------------------------- views
    def free_procs_at(self, t: int) -> int:
        """Processors free at instant t >= origin, as scan_count counts them. O(P)."""
        k = bisect_right(self._times, t)
        return self.total - self.used0 - (sum(self._deltas[:k]) if k else 0)

    def free_at(self, node: str, t: int) -> Resources:
        """Free processors of a node now (future holds are not on nodes). O(1)."""
        return self._resources(max(self.node_free[self.index[node]], 0))

    def change_points(self) -> list[int]:
        """Every change point after the origin, ascending. O(P)."""
        return list(self._times)

    def windows(self, mask: int | None = None, min_duration: int = 0) -> list[Window]:
        """Free backfill windows from now, widest first: processors free now and for how
        long that many stay free. O(P)."""
        out: list[Window] = []
        free = self.total - self.used0
        t = self.origin
        u = self.used0
        prev = -1
        for tp, d in zip(self._times, self._deltas):
            u += d
            if self.total - u < free:
                dur = tp - t
                if free > 0 and dur > prev and dur >= min_duration:
                    out.append(Window(free, -(-free // max(self.per_node, 1)), dur))
                    prev = dur
                free = self.total - u
        if free > 0:
            out.append(Window(free, -(-free // max(self.per_node, 1)), FOREVER))
        out.reverse()
        return out

    def dump(self) -> str:
        lines = [f"count table at {self.origin}: {self.total} procs on {len(self.nodes)} nodes, "
                 f"{self.used0} held now"]
        u = self.used0
        for t, d in zip(self._times, self._deltas):
            u += d
            lines.append(f"  {t}: {u} held")
        return "\n".join(lines)

    def check(self) -> None:
        """Assert every invariant (tests, the simulator's table check): see _check."""
        self._check()

    def _check(self) -> None:
        """Assert every invariant: the profile and the node counts agree with the holds, and
        no instant holds more processors than the cluster has. O(H log H + N)."""
        used0 = 0
        pts: dict[int, int] = {}
        busy = [0] * len(self.nodes)
        endheap.check(self._ends, self.holds)
        for o, h in self.holds.items():
            assert h.end > self.origin and h.end > h.start and h.procs > 0, f"bad hold {o}"
            if h.start <= self.origin:
                used0 += h.procs
            else:
                pts[h.start] = pts.get(h.start, 0) + h.procs
                assert not h.nodes, f"{o}: a future hold has nodes"
            pts[h.end] = pts.get(h.end, 0) - h.procs
            for i, k in h.nodes:
                busy[i] += k
            assert sum(k for _, k in h.nodes) in (0, h.procs), f"{o}: nodes do not match procs"
        assert len(self._ends) <= 2 * len(self.holds) + endheap.SLACK, "end heap not compacted"
        assert used0 == self.used0, f"held now {self.used0} != {used0}"
        want = sorted((t, d) for t, d in pts.items() if d)
        assert want == list(zip(self._times, self._deltas)), "stale profile"
        assert self._rises == [t for t, d in want if d > 0], "stale rises"
        assert all(t > self.origin for t in self._times), "change point before origin"
        u = used0
        if not self.overcommitted:
            assert u <= self.total, f"over-allocated now: {u} > {self.total}"
        for _t, d in want:
            u += d
            assert u >= 0
            if not self.overcommitted:
                assert u <= self.total, f"over-allocated at {_t}: {u} > {self.total}"
        for i, b in enumerate(busy):
            assert self.node_free[i] == self.per_node - b, f"node {self.nodes[i].name}: stale count"
            assert (self.node_free[i] > 0) == bool(self._free_mask >> i & 1), f"node {i}: free index"
            if i not in self.overcommitted:
                assert self.node_free[i] >= 0, f"node {self.nodes[i].name} over-allocated"
        assert sum(busy) <= self.used0 or self.overcommitted, "nodes busy beyond the count"
        if self._tracking:
            self._check_tracked()

