"""Maui fair share (spec §2.4, §3.4): usage charged as jobs run, kept in FSINTERVAL windows.

Every cycle each running job is charged `rate x seconds` since the last cycle, rate being its
dedicated processors (DEDICATEDPS, UTILIZEDPS: maui-py knows no utilisation, so it charges the
dedicated ones) or processor-equivalents (DEDICATEDPES), to its user, group, account, QOS and
class and to the system total. Windows are aligned on multiples of FSINTERVAL (Maui's
`now - now % FSINTERVAL`); a charge that spans a boundary is split between the windows.

    usage(c) = W0(c) + sum_{i=1}^{FSDEPTH-1} FSDECAY^i * Wi(c)      (W0: the current window)
    pct(c)   = 100 * usage(c) / usage(system)

A credential's FSTARGET (its own if > 0, else its kind's DEFAULT one) gives the FS subfactor
`target - pct` (`1 - pct/target` with a `%` FSPOLICY); a floor (`+`) keeps only a positive
value, a ceiling (`-`) only a negative one, and the caps (`^` absolute usage, `%` percent of
the system) add no priority but block jobs whose charge would cross them (MFSCheckCap).

Where maui-py differs from Maui 3.3.1, so that a simulation charges exactly what ran: a job
that started and ended between two cycles, or ended since the last one, is charged up to now
(at most its wallclock limit) instead of losing that tail (docs/compatibility.md).

Charging is incremental: each running job's rate sits in per-key sums from its first charge
to its end, so a cycle charges each key once (see charge). Costs: charge O(keys charged x
windows crossed + jobs started, changed or ended) plus an identity check per running job;
the decayed sum of older windows is cached
and recomputed once per window roll, O(credentials x FSDEPTH); subfactors and cap checks O(1)
per credential kind.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..cfg.choices import FairSharePolicy as FSP
from ..cfg.values import FsTarget
from ..model import Job
from . import fsuntil

KINDS: tuple[tuple[str, str, str, str], ...] = (
    # (usage key prefix, *CFG parameter, Job attribute, FS subfactor)
    ("user", "USERCFG", "user", "FSUSER"),
    ("group", "GROUPCFG", "group", "FSGROUP"),
    ("acct", "ACCOUNTCFG", "account", "FSACCOUNT"),
    ("qos", "QOSCFG", "qos", "FSQOS"),
    ("class", "CLASSCFG", "class_", "FSCLASS"),
)
FS_POLICIES: dict[FSP, tuple[bool, bool, bool]] = {
    FSP.NONE: (False, False, False),
    FSP.DEDICATEDPS: (True, False, False), FSP.DEDICATEDPS_PERCENT: (True, False, True),
    FSP.DEDICATEDPES: (True, True, False), FSP.DEDICATEDPES_PERCENT: (True, True, True),
    FSP.UTILIZEDPS: (True, False, False), FSP.UTILIZEDPS_PERCENT: (True, False, True),
}
"""FSPOLICY -> (fair share on, usage in processor-equivalents rather than processors,
percentage-based subfactor). UTILIZEDPS is charged as DEDICATEDPS (no utilisation data)."""

SYSTEM = "sched:"
_NO_USAGE: dict[str, float] = {}
"""The current window when nothing was charged in it (never written)."""
KEEP_WINDOWS = 32
"""Windows kept whatever FSDEPTH is (its largest value), so a larger FSDEPTH after a reload
finds the history."""


def decayed(windows: Sequence[float], decay: float) -> float:
    """sum_i decay^i * windows[i], newest window first (spec §3.4). O(len)."""
    return sum(w * decay ** i for i, w in enumerate(windows))


def fs_subfactor(target: FsTarget, pct: float, percent_policy: bool = False) -> float:
    """The FS subfactor of one credential at `pct` percent usage (MPriority.c, spec §3.3).

    target: pushes both ways; floor (+): never negative; ceiling (-): never positive; the
    caps (^, %) are feasibility limits only: 0."""
    if target.mode in ("capabs", "caprel") or target.value <= 0:
        return 0.0
    sf = (1.0 - pct / target.value) if percent_policy else (target.value - pct)
    if target.mode == "floor":
        return max(sf, 0.0)
    if target.mode == "ceiling":
        return min(sf, 0.0)
    return sf


class FairShare:
    """Fair-share usage windows and what they mean for priority and caps, for one config."""

    def __init__(self, cfg):
        self.enabled, self.pes, self.percent = FS_POLICIES[cfg.get("FSPOLICY")]
        interval = int(cfg.get("FSINTERVAL"))
        self.interval = interval if interval > 0 else 1 << 40      # -1: one endless window
        self.depth = max(1, int(cfg.get("FSDEPTH")))
        self.decay = float(cfg.get("FSDECAY"))
        self.targets: dict[str, dict[str, FsTarget]] = {}
        self.default_target: dict[str, FsTarget] = {}
        for prefix, param, _attr, _sf in KINDS:
            found: dict[str, FsTarget] = {}
            for name, obj in cfg.objects(param).items():
                t = obj.get("FSTARGET")
                if t is not None and t.value > 0:
                    found[name] = t
            self.targets[prefix] = found
            if "DEFAULT" in found:
                self.default_target[prefix] = found["DEFAULT"]
        self.has_caps = any(t.mode in ("capabs", "caprel") for d in self.targets.values() for t in d.values())
        # state (dump/restore)
        self.windows: dict[int, dict[str, float]] = {}
        self.last: int | None = None
        self.seen: dict[str, tuple[int, float, int, tuple[str, ...]]] = {}
        self.totals: tuple[int, int] = (1, 0)
        # cache: the decayed older windows for the current one
        self._cur: int | None = None
        self._factor: dict[str, float] = {}
        self._memo: dict[tuple[str, ...], dict[str, float]] = {}
        """subfactors per credential tuple, valid until the next charge."""
        self._by_key: dict[str, float] = {}
        """usage key -> its FS subfactor, valid until the next charge: the credential
        sets of one user (several QOS, classes, groups) share it (_subfactors)."""
        self._caps: dict[tuple[str, ...], tuple] = {}
        """_caps_of per credential tuple, valid until the next charge."""
        self._targets: dict[tuple[str, ...], tuple] = {}
        """_targets_of per credential tuple: fixed for the configuration."""
        self._capped: dict[tuple[str, ...], bool] = {}
        """capped() per credential tuple: fixed for the configuration."""
        self._rolls = 0
        """How many times the decayed older windows were worked out (_roll): within one
        count the current window only grows and the older ones stay (priority/fsuntil)."""
        self._until = fsuntil.Bounds(-1, fs_subfactor)
        self._reset_rates()

    # ------------------------------------------------------------------ charging
    def keys(self, job: Job) -> tuple[str, ...]:
        """The usage keys a job is charged to: its credentials, then the system."""
        out = [f"{prefix}:{getattr(job, attr)}" for prefix, _p, attr, _s in KINDS if getattr(job, attr)]
        out.append(SYSTEM)
        return tuple(out)

    def rate(self, job: Job) -> float:
        """Usage per second: dedicated processors, or processor-equivalents (DEDICATEDPES:
        the larger of the processor and memory shares of the cluster, in processors)."""
        procs = float(job.procs)
        if self.pes:
            cluster_procs, cluster_mem = self.totals
            mem = job.request.total.mem
            if cluster_mem > 0 and mem:
                procs = max(procs, mem / cluster_mem * cluster_procs)
        return procs

    def set_totals(self, procs: int, mem: int) -> None:
        """Processors and memory (MB) of the usable nodes, for processor-equivalents."""
        self.totals = (max(1, int(procs)), int(mem))

    def charge(self, now: int, running: Iterable[Job], moves=None) -> None:
        """Charge the running jobs (and those gone since the last cycle) up to `now`.

        Incremental: the jobs charged since the last cycle at an unchanged rate sit in
        per-key rate sums (`_rates`, added at a job's first charge or note_started, taken
        out at its end), charged in one step per key; only new, changed and gone jobs are
        charged one by one. The same numbers as charging every job from scratch: rates
        are whole processors (exact float sums) except with processor-equivalents
        (DEDICATEDPES), equal there within float rounding. `moves` (core/jobsets.Moves):
        when they start from the running set this fair share last charged, they name
        every job to look at (the moved ones, the ones started here since, the few not in
        the sums yet) and no running job is walked. O(credentials charged x windows
        crossed + jobs that started, changed or ended), plus, without usable moves, an
        identity check per running job."""
        if not self.enabled:
            return
        last = self.last if self.last is not None else now
        if self.pes and self.totals != self._rated_totals:
            self._reset_rates()             # a processor-equivalent depends on the totals
        if moves is not None and self._synced is not None and moves.prev == self._synced:
            moved = {job.id: job for job in moves.jobs}
            gone = [j for j in self._started if j not in moved]
            gone += [j for j in moves.left if j in self.seen]
            items = list(moved.items())
            items += [(j, self._objs[j]) for j in self._loose
                      if j not in moved and j not in moves.left]
        else:
            cur = {job.id: job for job in running}
            gone = [j for j in self.seen if j not in cur] if not cur.keys() >= self.seen.keys() else []
            objs, bulk = self._objs, self._bulk
            items = [(jid, job) for jid, job in cur.items()
                     if objs.get(jid) is not job or jid not in bulk]
            self._loose = set()
        self._charge_jobs(now, last, gone, items)
        self._synced = moves.cur if moves is not None else None
        self._started = set()
        self.last = now
        self._memo.clear()
        self._by_key.clear()
        self._caps.clear()
        self._roll(now // self.interval)

    def _charge_jobs(self, now: int, last: int, gone: list[str], items: list) -> None:
        """Charge the jobs `gone` since the last charge up to their end, then each of
        `items` (job id, job: running, new, changed or not yet in the rate sums) from
        the last charge (or its start), then the rate sums; the jobs charged one by one
        join the sums. O(gone + items + keys x windows crossed)."""
        seen, objs, bulk = self.seen, self._objs, self._bulk
        for jid in gone:
            rec = seen.pop(jid, None)
            if rec is None:
                continue
            start, rate, wallclock, keys = rec
            objs.pop(jid, None)
            self._loose.discard(jid)
            if bulk.pop(jid, None) is not None:
                self._unrate(rec)
            self._add(keys, rate, max(last, start), min(now, start + max(wallclock, 1)))
        fresh = []
        for jid, job in items:
            known = seen.get(jid)
            start = job.start_time if job.start_time is not None else (known[0] if known else now)
            rec = (start, self.rate(job), job.wallclock, self.keys(job))
            objs[jid] = job
            seen[jid] = rec
            old = bulk.get(jid)
            if old is not None:
                if old == rec:
                    continue
                del bulk[jid]
                self._unrate(old)
            self._add(rec[3], rec[1], max(last, start), now)
            fresh.append((jid, rec))
        self._add_rates(last, now)
        for jid, rec in fresh:
            if rec[0] <= now:
                self._rate(jid, rec)
                self._loose.discard(jid)
            else:
                self._loose.add(jid)

    def note_started(self, jobs: Iterable[Job], now: int) -> None:
        """Jobs the cycle just started: charged from now on even if they end before the next
        cycle sees them running."""
        if self.enabled:
            for job in jobs:
                rec = self.seen[job.id] = (now, self.rate(job), job.wallclock, self.keys(job))
                self._objs.pop(job.id, None)
                self._loose.discard(job.id)
                self._started.add(job.id)
                old = self._bulk.pop(job.id, None)
                if old is not None:
                    self._unrate(old)
                if self.last is not None and now <= self.last:
                    self._rate(job.id, rec)

    # ------------------------------------------------------------------ rate sums
    def _reset_rates(self) -> None:
        """Forget the rate sums: the next charge re-adds every running job one by one."""
        self._rates: dict[str, list] = {}
        self._bulk: dict[str, tuple[int, float, int, tuple[str, ...]]] = {}
        self._objs: dict[str, Job] = {}
        self._rated_totals = self.totals
        self._synced: int | None = None
        """The running set (core/jobsets token) the last charge saw; None: unknown."""
        self._loose: set[str] = set()
        """Running jobs charged one by one that are not in the rate sums (start after
        the last charge): every charge looks at them again."""
        self._started: set[str] = set()
        """Jobs note_started since the last charge: gone at the next one unless running."""

    def _rate(self, jid: str, rec) -> None:
        """Put a job charged up to the last charge into the rate sums."""
        self._bulk[jid] = rec
        rates, rate = self._rates, rec[1]
        for key in rec[3]:
            r = rates.get(key)
            if r is None:
                rates[key] = [rate, 1]
            else:
                r[0] += rate
                r[1] += 1

    def _unrate(self, rec) -> None:
        """Take a job out of the rate sums (a key with no job left is dropped: no residue)."""
        rates, rate = self._rates, rec[1]
        for key in rec[3]:
            r = rates[key]
            if r[1] == 1:
                del rates[key]
            else:
                r[0] -= rate
                r[1] -= 1

    def _add_rates(self, a: int, b: int) -> None:
        """Charge every key its summed rate x (b - a), split over the windows crossed."""
        if b <= a or not self._rates:
            return
        step = self.interval
        k = a // step
        while a < b:
            end = min(b, (k + 1) * step)
            span = end - a
            w = self.windows.setdefault(k, {})
            for key, (rate, _n) in self._rates.items():
                if rate > 0:
                    w[key] = w.get(key, 0.0) + rate * span
            if k != self._cur:
                self._cur = None
            a, k = end, k + 1

    def _add(self, keys: Sequence[str], rate: float, a: int, b: int) -> None:
        """Add rate x (b - a) to `keys`, split over the windows [a, b) crosses."""
        if b <= a or rate <= 0:
            return
        step = self.interval
        k = a // step
        while a < b:
            end = min(b, (k + 1) * step)
            amount = rate * (end - a)
            w = self.windows.setdefault(k, {})
            for key in keys:
                w[key] = w.get(key, 0.0) + amount
            if k != self._cur:
                self._cur = None        # an older window changed: recompute the decayed part
            a, k = end, k + 1

    def _roll(self, cur: int) -> None:
        """Make `cur` the current window: drop windows beyond KEEP_WINDOWS and recompute the
        decayed sum of the FSDEPTH-1 older ones. O(credentials x FSDEPTH) per roll."""
        if cur == self._cur:
            return
        for k in [k for k in self.windows if k <= cur - KEEP_WINDOWS]:
            del self.windows[k]
        factor: dict[str, float] = {}
        for i in range(1, self.depth):
            w = self.windows.get(cur - i)
            if w:
                scale = self.decay ** i
                for key, v in w.items():
                    factor[key] = factor.get(key, 0.0) + scale * v
        self._factor = factor
        self._cur = cur
        self._rolls += 1

    # ------------------------------------------------------------------ reading
    def usage(self, key: str) -> float:
        """Decayed usage of a key (`user:john`, SYSTEM) as of the last charge. O(1)."""
        if self._cur is None:
            if self.last is None:
                return 0.0
            self._roll(self.last // self.interval)
        return self.windows.get(self._cur, {}).get(key, 0.0) + self._factor.get(key, 0.0)

    def percent_of(self, prefix: str, name: str) -> float:
        """A credential's share of the system's decayed usage, in percent (diagnose -f)."""
        total = self.usage(SYSTEM)
        return 100.0 * self.usage(f"{prefix}:{name}") / total if total > 0 else 0.0

    def target(self, prefix: str, name: str) -> FsTarget | None:
        """The credential's FSTARGET if > 0, else its kind's DEFAULT one, else None."""
        return self.targets[prefix].get(name) or self.default_target.get(prefix)

    def subfactors(self, job: Job) -> dict[str, float]:
        """FSUSER ... FSCLASS of a job; empty when fair share is off or nothing was used.
        O(1): memoised per credential tuple until the next charge."""
        if not self.enabled:
            return {}
        creds = (job.user, job.group, job.account, job.qos, job.class_)
        out = self._memo.get(creds)
        if out is None:
            out = self._memo[creds] = self._subfactors(creds)
        return out

    def subfactors_of(self, creds: tuple[str, ...]) -> dict[str, float]:
        """subfactors() of a credential set (user, group, account, qos, class), for a
        caller that has made the tuple already. O(1), memoised as subfactors() is."""
        if not self.enabled:
            return {}
        out = self._memo.get(creds)
        if out is None:
            out = self._memo[creds] = self._subfactors(creds)
        return out

    def empty(self, creds: tuple[str, ...]) -> bool:
        """Whether subfactors_of(creds) is empty (fair share off, no usage, or every
        targeted credential's subfactor 0: a ceiling target under it, which most are),
        each value worked out as _subfactors works it out and shared with it (_by_key).
        The fair-share re-ranking asks it of every queued credential set each cycle
        (core/selection._of_creds): one call, no dictionary made. O(KINDS)."""
        if not self.enabled:
            return True
        total = self.usage(SYSTEM)
        if total <= 0:
            return True
        by_key = self._by_key
        for _prefix, _name, _sf, key, t in self._targets_of(creds):
            v = by_key.get(key)
            if v is None:
                v = by_key[key] = fs_subfactor(t, 100.0 * self.usage(key) / total, self.percent)
            if v:
                return False
        return True

    def empties(self, sets: Iterable[tuple[str, ...]]) -> list[bool]:
        """[empty(s) for s in sets], in one loop: the fair-share re-ranking asks it of
        every credential set of the kept queue each cycle (core/fsrank.rank, 200 sets on a
        site's week). Exact: each usage key's subfactor is the float empty() works out
        (fs_subfactor of 100 x usage(key) / usage(SYSTEM), usage() being the current
        window's value plus the decayed older ones, read here from the same two maps in
        the same order) and shares _by_key with it, so the answers are empty()'s; only
        the calls per set (usage, _targets_of, fs_subfactor's lookup) are left out.
        O(KINDS) per set."""
        sets = list(sets)
        if not self.enabled:
            return [True] * len(sets)
        total = self.usage(SYSTEM)          # rolls the windows, as empty() does
        if total <= 0:
            return [True] * len(sets)
        by_key, targets_of, percent = self._by_key, self._targets_of, self.percent
        now_w, older = self.windows.get(self._cur, _NO_USAGE), self._factor
        if fsuntil.BOUNDED and not self.pes:
            if self._until.rolls != self._rolls:
                self._until = fsuntil.Bounds(self._rolls, fs_subfactor, now_w)
            got = self._until.empties(sets, total, now_w, older, targets_of, by_key, percent)
            if got is not None:
                return got
        out = []
        for creds in sets:
            none = True
            for _prefix, _name, _sf, key, t in targets_of(creds):
                v = by_key.get(key)
                if v is None:
                    used = now_w.get(key, 0.0) + older.get(key, 0.0)
                    v = by_key[key] = fs_subfactor(t, 100.0 * used / total, percent)
                if v:
                    none = False
                    break
            out.append(none)
        return out

    def known_empty(self, sets: list) -> list[bool] | None:
        """For each of `sets`, True when this roll's kept bound (priority/fsuntil.py)
        answers empties() for it at once (then empties() says True), False when it does
        not; None when no bound may be read now (fair share off, processor-equivalents,
        BOUNDED off, the windows not rolled or the bounds of another roll). Unlike
        empties() it records nothing and makes no per-set call: the fair-share
        re-ranking asks it of every credential set a cycle first
        (core/selection.KNOWN_EMPTY). O(1) per set."""
        if (not self.enabled or self.pes or not fsuntil.BOUNDED or self._cur is None
                or self._until.rolls != self._rolls):
            return None
        return self._until.known(sets, self.windows.get(self._cur, _NO_USAGE).get(SYSTEM, 0.0))

    def check_until(self) -> None:
        """Raise AssertionError unless the kept empties bounds of this roll hold now
        (fsuntil.Bounds.check, empty() asked from scratch)."""
        if self._until.rolls == self._rolls and self.last is not None:
            self._until.check(self.usage(SYSTEM), self.windows.get(self._cur, _NO_USAGE),
                              self._factor, self.percent, self.empty)

    def _subfactors(self, creds: tuple[str, ...]) -> dict[str, float]:
        """subfactors() of a credential set, each credential's value worked out once per
        charge (_by_key: a key's target is a function of the key, its usage and the
        system's move only at a charge). O(KINDS)."""
        total = self.usage(SYSTEM)
        out: dict[str, float] = {}
        if total <= 0:
            return out
        by_key = self._by_key
        for _prefix, name, sf, key, t in self._targets_of(creds):
            v = by_key.get(key)
            if v is None:
                v = by_key[key] = fs_subfactor(t, 100.0 * self.usage(key) / total, self.percent)
            if v:
                out[sf] = v
        return out

    def _targets_of(self, creds: tuple[str, ...]) -> tuple:
        """((prefix, name, FS subfactor, usage key, FSTARGET), ...) of the credentials in
        `creds` (KINDS' order) that have a target: a function of the configuration only,
        kept per credential set (swept past 100,000 sets). O(KINDS) the first time."""
        got = self._targets.get(creds)
        if got is None:
            out = []
            for (prefix, _param, _attr, sf), name in zip(KINDS, creds):
                if name:
                    t = self.target(prefix, name)
                    if t is not None:
                        out.append((prefix, name, sf, f"{prefix}:{name}", t))
            if len(self._targets) > 100_000:
                self._targets.clear()
                self._capped.clear()
            got = self._targets[creds] = tuple(out)
        return got

    def cap_violation(self, job: Job) -> str | None:
        """The first FSTARGET cap (^ absolute, % relative) this job's charge would cross.
        The caps of a credential set and their usage are memoised until the next charge
        (_caps), so a job none of whose credentials has a cap costs a look-up."""
        if not self.enabled or not self.has_caps:
            return None
        creds = (job.user, job.group, job.account, job.qos, job.class_)
        caps = self._caps.get(creds)
        if caps is None:
            caps = self._caps[creds] = self._caps_of(creds)
        if not caps:
            return None
        charge = self.rate(job) * job.wallclock
        total = self.usage(SYSTEM)
        for prefix, name, t, usage in caps:
            used = usage + charge
            if t.mode == "capabs" and used > t.value:
                return f"fair-share cap {prefix} {name}: usage {used:.0f} would exceed {t}"
            if t.mode == "caprel" and total > 0 and 100.0 * used / total > t.value:
                return (f"fair-share cap {prefix} {name}: {100.0 * used / total:.2f}% of system usage "
                        f"would exceed {t}")
        return None

    def capped(self, creds: tuple[str, ...]) -> bool:
        """Whether a credential set (user, group, account, qos, class) has a cap that
        cap_violation could name: a function of the configuration only (without one,
        cap_violation is None for every job of the set). O(1) after the first ask."""
        got = self._capped.get(creds)
        if got is None:
            got = self._capped[creds] = self.enabled and any(
                t.mode in ("capabs", "caprel") for *_r, t in self._targets_of(creds))
        return got

    def _caps_of(self, creds: tuple[str, ...]) -> tuple:
        """((prefix, name, cap target, usage), ...) of the credentials in `creds` (KINDS'
        order) whose FSTARGET is a cap. O(KINDS)."""
        return tuple((prefix, name, t, self.usage(key))
                     for prefix, name, _sf, key, t in self._targets_of(creds)
                     if t.mode in ("capabs", "caprel"))

    # ------------------------------------------------------------------ state
    def dump(self) -> dict:
        """Plain JSON-able data: the windows (by start time), the clock and the jobs seen."""
        return {
            "interval": self.interval,
            "last": self.last,
            "totals": list(self.totals),
            "windows": [[k * self.interval, dict(w)] for k, w in sorted(self.windows.items())],
            "seen": {jid: [s, r, wc, list(keys)] for jid, (s, r, wc, keys) in self.seen.items()},
        }

    def restore(self, data: dict | None) -> None:
        """Load dump() output; windows of another FSINTERVAL are re-bucketed by start time."""
        if not data:
            return
        self.windows = {}
        for start, w in data.get("windows", []):
            dest = self.windows.setdefault(int(start) // self.interval, {})
            for key, v in w.items():
                dest[key] = dest.get(key, 0.0) + float(v)
        self.last = data.get("last")
        totals = data.get("totals") or [1, 0]
        self.totals = (int(totals[0]), int(totals[1]))
        self.seen = {jid: (int(s), float(r), int(wc), tuple(keys))
                     for jid, (s, r, wc, keys) in (data.get("seen") or {}).items()}
        self._reset_rates()
        self._cur = None
        self._until = fsuntil.Bounds(-1, fs_subfactor)
        self._memo.clear()
        self._by_key.clear()
        self._caps.clear()
