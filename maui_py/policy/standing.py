"""Standing reservations (SRCFG[name], spec §2.11): the instances a configuration asks for.

Each SRCFG object becomes, at any moment, the list of its instances from the current period
on, DEPTH periods deep, each a Reservation with its own stable name (`office.20261123`) so the
cycle places it once and keeps it. Windows are computed in the configuration's zone
(TIMEZONE, cfg/zone.py: the host's unless set), with calendar days (DST-correct):

  PERIOD INFINITY     one instance from now on, without end;
  PERIOD DAY          [day + STARTTIME, day + ENDTIME) on every day of DAYS (ENDTIME <=
                      STARTTIME runs into the next day);
  PERIOD WEEK         [week + STARTTIME, week + ENDTIME), the week starting Sunday 00:00;
  WSTARTTIME/WENDTIME offsets [DD:]HH:MM:SS from the week's start, or, when DAYS lists days,
                      from each of those days (DAYS=MON WSTARTTIME=00:22:00:00
                      WENDTIME=01:06:00:00 is Monday 22:00 to Tuesday 06:00).

Who may use an instance: USERLIST, GROUPLIST, ACCOUNTLIST, CLASSLIST, QOSLIST (OR'd), and
TIMELIMIT (a job whose wallclock is at most TIMELIMIT may use it). Where: HOSTLIST Slurm
hostlists or node names (`node[01-04,7]`), or Maui host regular expressions when clearly one
(`^compute-0-[0-9]`, `node0[1-4]$`; model/hostlist.py), NODEFEATURES, PARTITION; how
much: TASKCOUNT tasks of RESOURCES (PROCS:-1, the default, means whole nodes; TASKCOUNT 0 means
every matching node).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, tzinfo
from typing import Sequence

from ..model import Access, Acl, Node, Reservation, ReservationKind, Resources, hostlist

DAY = 86400
WEEK = 7 * DAY
_DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")
_FOREVER = 1 << 62


def _at(d: date, offset: int, zone: tzinfo) -> int:
    """`offset` ([DD:]HH:MM:SS) after the start of local day d, on the wall clock: 09:00 is
    09:00 on a day of 23 or 25 hours (a DST change) too, and a day ends at the next midnight."""
    return int((datetime(d.year, d.month, d.day, tzinfo=zone) + timedelta(seconds=offset)).timestamp())


def day_start(t: int, days_ahead: int, zone: tzinfo) -> int:
    """Local midnight `days_ahead` days after the day holding t."""
    return _at(datetime.fromtimestamp(t, zone).date() + timedelta(days=days_ahead), 0, zone)


def _weekday(d: date) -> str:
    """SUN..SAT of a date."""
    return _DAYS[(d.weekday() + 1) % 7]


def windows(attrs, now: int, zone: tzinfo) -> list[tuple[str, int, int]]:
    """(instance suffix, start, end) of one SRCFG object in `zone`, current period first.
    O(DEPTH x 7)."""
    period = str(attrs.get("PERIOD") or "DAY").upper()
    depth = max(1, int(attrs.get("DEPTH") or 2))
    days = tuple(d.upper()[:3] for d in (attrs.get("DAYS") or ("ALL",)))
    all_days = not days or "ALL" in days
    wstart, wend = attrs.get("WSTARTTIME"), attrs.get("WENDTIME")
    start = int(attrs.get("STARTTIME") or 0)
    end = attrs.get("ENDTIME")
    today = datetime.fromtimestamp(now, zone).date()
    out = []
    if period == "INFINITY":
        return [("0", now, _FOREVER)]
    if wstart is not None or wend is not None:
        ws = int(wstart or 0)
        we = int(wend) if wend is not None else ws + (DAY if not all_days else WEEK)
        if not all_days:
            for k in range(-1, 7 * depth):
                d = today + timedelta(days=k)
                if _weekday(d) in days:
                    out.append((d.strftime("%Y%m%d"), _at(d, ws, zone),
                                _at(d, we if we > ws else we + DAY, zone)))
            return [w for w in out if w[2] > now][: depth * max(1, len(days))]
        period = "WEEK"
        start, end = ws, we
    if period == "WEEK":
        sunday = today - timedelta(days=(today.weekday() + 1) % 7)
        e_off = int(end) if end is not None else WEEK
        for k in range(-1, depth):
            w = sunday + timedelta(weeks=k)
            out.append((w.strftime("%Y%m%d"), _at(w, start, zone),
                        _at(w, e_off if e_off > start else e_off + WEEK, zone)))
        return [x for x in out if x[2] > now][:depth]
    e_off = int(end) if end is not None else DAY
    for k in range(-1, depth):
        d = today + timedelta(days=k)
        if all_days or _weekday(d) in days:
            out.append((d.strftime("%Y%m%d"), _at(d, start, zone),
                        _at(d, e_off if e_off > start else e_off + DAY, zone)))
    return [x for x in out if x[2] > now]


def _acl(attrs) -> Access:
    def names(key):
        return frozenset(str(x) for x in (attrs.get(key) or ()))
    return Access(Acl(users=names("USERLIST"), groups=names("GROUPLIST"),
                      accounts=names("ACCOUNTLIST"), classes=names("CLASSLIST"),
                      qos=names("QOSLIST")), int(attrs.get("TIMELIMIT", -1) if
                                                 attrs.get("TIMELIMIT") is not None else -1))


def match_hosts(patterns: Sequence[str], nodes: Sequence[Node]) -> tuple[str, ...]:
    """Nodes named in HOSTLIST (model/hostlist.py: a Slurm hostlist or node name, a Maui
    regular expression when clearly one); ALL (or nothing) means every node. An expression
    that cannot be read (check-config reports it) names nothing. O(N x p + hostlist sizes)."""
    names = [n.name for n in nodes]
    pats = [p for p in patterns if p]
    if not pats:
        return tuple(names)
    picked: set[str] = set()
    for p in pats:
        try:
            picked.update(hostlist.match(p, names).hosts)
        except hostlist.HostlistError:
            continue
    return tuple(n for n in names if n in picked)


def per_task(attrs) -> Resources | None:
    """RESOURCES as one task's Resources, or None for whole nodes (PROCS:-1)."""
    res = dict(attrs.get("RESOURCES") or (("PROCS", -1),))
    procs = int(res.get("PROCS", -1))
    if procs < 0:
        return None
    gres = {k.lower(): int(v) for k, v in res.items() if k not in ("PROCS", "MEM")}
    return Resources.of(procs, int(res.get("MEM", 0)), gres)


def instances(cfg, nodes: Sequence[Node], now: int) -> list[tuple[Reservation, Access]]:
    """Every standing reservation instance from now on, unplaced (hosts/tasks given), with
    who may use it. O(SRCFG objects x DEPTH + N for host matching)."""
    out = []
    for name, attrs in sorted(cfg.objects("SRCFG").items()):
        if name == "DEFAULT":
            continue
        feats = frozenset(attrs.get("NODEFEATURES") or ())
        part = str(attrs.get("PARTITION") or "ALL")
        pool = [n for n in nodes if feats <= n.features
                and (part.upper() == "ALL" or not n.partitions or part in n.partitions)]
        hosts = match_hosts(tuple(attrs.get("HOSTLIST") or ("ALL",)), pool)
        if not hosts:
            continue        # a HOSTLIST (or features, partition) naming no node reserves nothing
        access = _acl(attrs)
        flags = frozenset(attrs.get("FLAGS") or ()) | {"STANDINGRES"}
        for suffix, start, end in windows(attrs, now, cfg.zone):
            r = Reservation(f"{name}.{suffix}", ReservationKind.STANDING, start, end,
                            hosts=hosts, tasks=int(attrs.get("TASKCOUNT") or 0),
                            per_task=per_task(attrs), acl=access.acl,
                            access=str(attrs.get("ACCESS") or "DEDICATED"), flags=flags,
                            owner=str(attrs.get("OWNER") or ""),
                            priority=int(attrs.get("PRIORITY") or 0))
            out.append((r, access))
    return out
