"""Request compiling for the node table: a request resolved into per-task vectors, the
eligible nodes and how tasks count (tasks per node, whole nodes), cached per shape; and
the per-node fit questions (tasks that fit now, over a window) the scan asks, cached per
step function."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import fields
from operator import attrgetter

from ..model import JobRequest, Resources
from .api import FOREVER, Compiled, NoPlacement
from .bitset import NearMembers, iter_members, mask_of, members
from .steps import fit_on, tasks_in

_REQUEST_FIELDS = attrgetter(*(f.name for f in fields(JobRequest) if f.compare
                                and f.name != "per_task"))
_RESOURCE_FIELDS = attrgetter(*(f.name for f in fields(Resources) if f.compare))
"""A request's compared fields as tuples, in C (per_task's own fields apart): the compile
cache's key equals and hashes as the request does, without the generated __eq__ and
__hash__ of JobRequest and Resources (Python calls)."""


class Compiling:
    """The node table's requests: a JobRequest compiled once per shape into the vectors and
    node sets a scan reads (Compiled), and how many tasks a node holds over a window.
    A part of ReservationTable (planning/table.py), which owns the state it reads."""

    use_near = True
    """_keyed_now writes its set of nodes out through the table's NearMembers
    (planning/bitset.py: patched from a set asked lately); False: bitset.members, the
    definition (tests/property/test_near_members.py compares both)."""
    _near: NearMembers

    # --------------------------------------------------------------- requests
    def feature_mask(self, feature: str) -> int:
        m = self._feature_masks.get(feature)
        if m is None:
            m = mask_of([i for i, n in enumerate(self.nodes) if feature in n.features],
                        len(self.nodes))
            self._feature_masks[feature] = m
        return m

    def class_mask(self, job_class: str) -> int:
        m = self._class_masks.get(job_class)
        if m is None:
            m = mask_of([i for i, n in enumerate(self.nodes) if n.serves(job_class)],
                        len(self.nodes))
            self._class_masks[job_class] = m
        return m

    def compile(self, req: JobRequest, job_class: str = "",
                exclusive: bool | None = None) -> Compiled | NoPlacement:
        """Resolve a request against this table, or say why it can never fit; cached per
        request shape (jobs of one kind share it; node states do not change under a table).

        O(1) for a shape seen before, O(features + classes) with cached masks otherwise,
        O(N) the first time a feature is seen.
        """
        key = (_REQUEST_FIELDS(req), _RESOURCE_FIELDS(req.per_task), job_class, exclusive)
        got = self._compiled.get(key)
        if got is None:
            if len(self._compiled) > 100_000:
                self._compiled.clear()
            got = self._compiled[key] = self._compile(req, job_class, exclusive)
        return got

    def _compile(self, req: JobRequest, job_class: str,
                 exclusive: bool | None) -> Compiled | NoPlacement:
        if req.tasks <= 0:
            return NoPlacement("the job asks for no tasks")
        pt = req.per_task
        for name, count in pt.gres:
            if count and name not in self._gres_pos:
                return NoPlacement(f"no node has generic resource {name!r}")
        d = self.vector(pt)
        excl = req.exclusive if exclusive is None else exclusive
        tpn = req.tasks_per_node
        if tpn > 0:
            mode, per = "tpn", tpn
            need = max(req.nodes, -(-req.tasks // tpn))
            tasks = need * tpn
        elif req.nodes > 0:
            if req.nodes > req.tasks:
                return NoPlacement(f"{req.nodes} nodes asked for only {req.tasks} tasks")
            mode, per, need, tasks = "nodes", 1, req.nodes, req.tasks
        else:
            mode, per, need, tasks = "any", 1, 0, req.tasks
        E = self.usable
        if not E:
            return NoPlacement("no node is up")
        for f in sorted(req.features):
            E &= self.feature_mask(f)
        if not E:
            return NoPlacement("no usable node has features " + ",".join(sorted(req.features)))
        if job_class:
            E &= self.class_mask(job_class)
            if not E:
                return NoPlacement(f"no usable node serves class {job_class!r}")
        if req.hostlist:
            unknown = [h for h in req.hostlist if h not in self.index]
            if unknown:
                return NoPlacement("hostlist names unknown nodes: " + ",".join(unknown))
            E &= mask_of([self.index[h] for h in req.hostlist], len(self.nodes))
            if not E:
                return NoPlacement("no host of the hostlist is usable")
        classes = []
        total = count = 0
        for cap, cm in self.cap_classes:
            m = E & cm
            if not m:
                continue
            kc = tasks_in(d, cap) if any(d) else (1 << 30)
            if kc < per:
                E &= ~cm
                continue
            c = m.bit_count()
            classes.append((m, kc))
            total += c * (per if mode == "tpn" else kc)
            count += c
        if not classes:
            return NoPlacement(f"no eligible node can hold {per} task(s) of {pt}")
        if mode == "any" and total < tasks:
            return NoPlacement(f"wider than the cluster: {tasks} tasks of {pt} asked, "
                               f"the eligible nodes hold at most {total}")
        if mode != "any" and count < need:
            return NoPlacement(f"needs {need} nodes, only {count} eligible nodes exist")
        if mode == "nodes":
            fits = sorted((kc for m, kc in classes for _ in range(min(m.bit_count(), need))),
                          reverse=True)
            if sum(fits[:need]) < tasks:
                return NoPlacement(f"{tasks} tasks do not fit on {need} nodes")
        return Compiled(req, d, tasks, mode, per, need, excl, E, classes)

    def _fit(self, cr: Compiled, i: int, t: int, e: int, exclude) -> int:
        """Tasks node i holds over [t, e), as the request counts them. O(h) or O(h log h)."""
        return fit_on(cr.d, cr.exclusive, self.cap[i], self._used(i, t, e, exclude), self.zero)

    def _fit_now(self, cr: Compiled, i: int, e: int) -> int:
        """_fit(cr, i, origin, e, None) in one call: the most node i uses over [origin, e)
        read from its step function's prefix maxima, and the fit kept with them per
        (segments covered, capacity, per-task vector, exclusive): start-now questions ask
        it of every partly used node, and most of those nodes do not change from one
        question to the next. O(log h)."""
        T = self._T[i]
        hit = self._pmax.get(id(T))
        if hit is None or hit[0] is not T:
            hit = self._from_origin(T, self._U[i])
        m = bisect_left(T, e)
        cap = self.cap[i]
        key = (m, cap, cr.d, cr.exclusive)
        f = hit[3].get(key)
        if f is None:
            f = hit[3][key] = fit_on(cr.d, cr.exclusive, cap, hit[2][m - 1], self.zero)
        return f

    def _fit_between(self, cr: Compiled, i: int, s: int, e: int) -> int:
        """_fit(cr, i, s, e, None), kept with the step function's cache entry (_from_origin)
        per (first and last segment met, capacity, per-task vector, exclusive): the
        reservations of a pass ask it of the same partly used nodes, over windows that
        differ but mostly cover the same segments of their step functions. O(log h) on a
        hit, O(log h + segments in the window) otherwise."""
        T = self._T[i]
        hit = self._pmax.get(id(T))
        if hit is None or hit[0] is not T:
            hit = self._from_origin(T, self._U[i])
        k = bisect_right(T, s) - 1        # T[0] is NEVER: k >= 0, and T[k] <= s < e
        m = bisect_left(T, e, k)          # segments k..m-1 meet [s, e); m > k
        cap = self.cap[i]
        key = (k, m, cap, cr.d, cr.exclusive)
        f = hit[3].get(key)
        if f is None:
            U = hit[1]
            f = hit[3][key] = fit_on(cr.d, cr.exclusive, cap,
                                      U[k] if m - k == 1 else tuple(map(max, *U[k:m])), self.zero)
        return f

    def _fits_now(self, cr: Compiled, nodes: int, e: int, fits: dict[int, int], count: bool,
                  per: int) -> tuple[int, int]:
        """_fit_now(cr, i, e) into fits[i] for every node i of `nodes`, in one loop; returns
        (sum of the fits when `count`, else 0; how many hold at least `per`). O(k log h);
        O(1) per node with a flat fit (_flat_fits), as most partly used nodes have."""
        tt = self._T
        d, exclusive = cr.d, cr.exclusive
        flat = self._flat_for(d, exclusive)
        tot = cnt = 0
        for i in members(nodes):
            T = tt[i]
            got = flat.get(i)
            if got is not None and got[0] is T:
                f = got[1]
            else:
                f = self._fit_missed(i, T, e, d, exclusive, flat)
            fits[i] = f
            if count:
                tot += f
            if f >= per:
                cnt += 1
        return tot, cnt

    def _keyed_now(self, cr: Compiled, nodes: int, e: int) -> tuple[int, int, list[tuple]]:
        """_fits_now's loop fused with LASTAVAILABLE's ranking at the origin
        (nodechoice._keyed_last): (sum of the fits, how many hold cr.per_node or more, and
        (gap after e, fit, node) for each of those, in node order), e the job's end. The
        gap is from e to the node's first change point at or after e (FOREVER: none), as
        nodechoice._keyed_last works it out from the scan's fits: one walk over the partly
        used nodes instead of a fits dict walked again to key it (planning/lastnow.py).
        O(k log h) for k nodes; O(1) per node fit with a flat fit."""
        tt = self._T
        d, exclusive, per = cr.d, cr.exclusive, cr.per_node
        flat = self._flat_for(d, exclusive)
        tot = 0
        keyed = []
        e1 = e - 1
        for i in (self._near.members(nodes) if self.use_near else members(nodes)):
            T = tt[i]
            got = flat.get(i)
            if got is not None and got[0] is T:
                f = got[1]
            else:
                f = self._fit_missed(i, T, e, d, exclusive, flat)
            tot += f
            if f >= per:
                k = bisect_right(T, e1)
                keyed.append(((T[k] - e if T[k] < FOREVER else FOREVER) if k < len(T)
                              else FOREVER, f, i))
        return tot, len(keyed), keyed

    def _flat_for(self, d: tuple[int, ...], exclusive: bool) -> dict:
        """The flat-fit memo of a per-task vector: node -> (its step function, fit), for
        nodes whose usage is the same over the whole horizon. At most 64 vectors kept."""
        flat = self._flat_fits.get((d, exclusive))
        if flat is None:
            if len(self._flat_fits) > 64:
                self._flat_fits.clear()
            flat = self._flat_fits[(d, exclusive)] = {}
        return flat

    def _fit_missed(self, i: int, T: list[int], e: int, d: tuple[int, ...], exclusive: bool,
                    flat: dict) -> int:
        """Node i's fit over [origin, e) when the flat memo missed: from the node's prefix
        maxima (built once per step function), memoised per (point, capacity, vector);
        entered in `flat` when the node's usage never changes. O(log h) plus O(h) once."""
        hit = self._pmax.get(id(T))
        if hit is None or hit[0] is not T:
            hit = self._from_origin(T, self._U[i])
        m = bisect_left(T, e)
        c = self.cap[i]
        key = (m, c, d, exclusive)
        f = hit[3].get(key)
        if f is None:
            f = hit[3][key] = fit_on(d, exclusive, c, hit[2][m - 1], self.zero)
        pm = hit[2]
        if pm[-1] == pm[0]:
            flat[i] = (T, f)
        return f

    def _first_fits(self, cr: Compiled, fast: int, others: int, e: int, s: int | None = None,
                    groups: tuple[int, ...] | None = None) -> list[tuple[int, int]] | None:
        """The first cr.nodes_needed nodes, in index order (`groups`: within each of these
        disjoint masks in turn, each in index order), of `fast` (each holds its class's
        idle fit) and of `others` where _fit_now(cr, i, e) >= cr.per_node, as (node,
        per_node); None when fewer qualify. _fits_now's loop (and flat fits) that stops at
        the last node taken (planning/firstnow.py). With `s` (an instant before every
        change point), a flat fit's miss is _fit_between(cr, i, s, e), the same number.
        O(k log h), k nodes walked."""
        per, need = cr.per_node, cr.nodes_needed
        cand = fast | others
        if cand.bit_count() < need:
            return None
        tt = self._T
        d, exclusive = cr.d, cr.exclusive
        flat = self._flat_for(d, exclusive)
        out: list[tuple[int, int]] = []
        for g in ((cand,) if groups is None else groups):
            for i in iter_members(cand & g if groups is not None else g):
                if not (fast >> i) & 1:
                    T = tt[i]
                    got = flat.get(i)
                    if got is not None and got[0] is T:
                        f = got[1]
                    elif s is not None:
                        f = self._fit_between(cr, i, s, e)
                    else:
                        f = self._fit_missed(i, T, e, d, exclusive, flat)
                    if f < per:
                        continue
                out.append((i, per))
                if len(out) == need:
                    return out
        return None

    def _check_fit_caches(self) -> None:
        """Assert that the cached fits and prefix maxima are those of the current step
        functions, and the node lists NearMembers keeps those of their sets.
        O(cached entries x dims)."""
        self._near.check()
        for (d, excl), flat in self._flat_fits.items():
            for i, (T, f) in flat.items():
                if T is self._T[i]:
                    pm = self._prefix_max(T, self._U[i])
                    assert pm[-1] == pm[0] and f == fit_on(d, excl, self.cap[i], pm[0],
                                                            self.zero), "stale flat fit"
        for T, U, pm, fits in self._pmax.values():   # (a deep copy's keys go stale: unused)
            assert len(pm) == len(U) == len(T), "stale prefix maxima"
            for key, f in fits.items():
                if len(key) == 4:       # _fit_now's, from the origin
                    m, cap, d, excl = key
                    assert f == fit_on(d, excl, cap, pm[m - 1], self.zero), "stale fit"
                else:                   # _fit_between's, over segments k..m-1
                    k, m, cap, d, excl = key
                    assert 0 <= k < m <= len(U), "fit over segments the step function lacks"
                    assert f == fit_on(d, excl, cap, tuple(map(max, *U[k:m])) if m - k > 1
                                        else U[k], self.zero), "stale fit"
            assert all(pm[k] == tuple(map(max, *U[:k + 1])) if k else pm[0] == U[0]
                       for k in range(len(U))), "wrong prefix maxima"
