"""Rows of the parameter table: Maui's scheduling parameters (reservations, backfill, priority
weights, fair share, credentials, throttling, deferral). params.py gathers them into TABLE."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

from .choices import AccrualPolicy, BackfillOrder
from .params_attrs import NODE_ATTRS, OBJECT_ATTRS, SR_ATTRS, cred_attrs
from .params_kinds import BACKFILL_METRIC, BACKFILL_POLICY, FS_POLICY, POLICY_MODE, RESERVATION_POLICY
from .rows import (
    ACCEPTED, BOOL, CAP, COMPONENT_WEIGHT, COUNT, INT, LIMIT, NAMES, OBJ, P, PAR, STACK, STRING, TIME,
    TIME_LIMIT, WEIGHT, Param, group,
)
from .values import Choice, Double, Integer, StringList
from .zone import ZONE


def _weights(rows: Iterable[tuple[str, str | None, str, Any, str]]) -> list[Param]:
    """Priority weight/cap pairs: (weight, cap, what it weighs, default weight, docs' default if different).

    Component weights (default 1) also take Maui's `<INTEGER>%` form; caps are <DOUBLE>, 0 = no cap.
    """
    out = []
    for weight, cap, what, default, doc_default in rows:
        component = default == 1 and weight != "QUEUETIMEWEIGHT"
        out.append(PAR(weight, COMPONENT_WEIGHT if component else WEIGHT, default, f"priority weight of {what}",
                       active=True, src="src" if doc_default or (component and weight != "CREDWEIGHT") else "same",
                       other=f"doc: {doc_default}" if doc_default else ""))
        if cap:
            out.append(PAR(cap, CAP, 0.0, f"cap on the pre-weighted {what.removeprefix('the ')} (0 = no cap)",
                           active=True))
    return out


_PRIORITY_WEIGHTS = (
    ("SERVICEWEIGHT", "SERVICECAP", "the service component (queue time, xfactor, bypass, policy violation)", 1, ""),
    ("QUEUETIMEWEIGHT", "QUEUETIMECAP", "queue time in minutes (SERV)", 1, ""),
    ("XFACTORWEIGHT", "XFACTORCAP", "the expansion factor (SERV)", 0, ""),
    ("SPVIOLATIONWEIGHT", "SPVIOLATIONCAP", "a soft-policy violation (SERV)", 0, ""),
    ("BYPASSWEIGHT", "BYPASSCAP", "the backfill bypass count (SERV)", 0, ""),
    ("TARGETWEIGHT", "TARGETCAP", "the target component (QOS queue-time and xfactor targets)", 1, "0"),
    ("TARGETQUEUETIMEWEIGHT", "TARGETQUEUETIMECAP", "closeness to the QOS queue-time target (TARG)", 0, ""),
    ("TARGETXFACTORWEIGHT", "TARGETXFACTORCAP", "closeness to the QOS xfactor target (TARG)", 0, ""),
    ("CREDWEIGHT", "CREDCAP", "the credential component", 1, ""),
    ("USERWEIGHT", "USERCAP", "the user priority (CRED)", 0, ""),
    ("GROUPWEIGHT", "GROUPCAP", "the group priority (CRED)", 0, ""),
    ("ACCOUNTWEIGHT", "ACCOUNTCAP", "the account priority (CRED)", 0, ""),
    ("QOSWEIGHT", "QOSCAP", "the QOS priority (CRED)", 0, ""),
    ("CLASSWEIGHT", "CLASSCAP", "the class priority (CRED)", 0, ""),
    ("ATTRWEIGHT", "ATTRCAP", "the attribute component (not implemented in 3.3.1: always 0)", 1, ""),
    ("FSWEIGHT", "FSCAP", "the fair-share component", 1, "0"),
    ("FSUSERWEIGHT", "FSUSERCAP", "user fair-share distance from target (FS)", 0, ""),
    ("FSGROUPWEIGHT", "FSGROUPCAP", "group fair-share distance from target (FS)", 0, ""),
    ("FSACCOUNTWEIGHT", "FSACCOUNTCAP", "account fair-share distance from target (FS)", 0, ""),
    ("FSQOSWEIGHT", "FSQOSCAP", "QOS fair-share distance from target (FS)", 0, ""),
    ("FSCLASSWEIGHT", "FSCLASSCAP", "class fair-share distance from target (FS)", 0, ""),
    ("RESWEIGHT", "RESCAP", "the resource component", 1, "0"),
    ("NODEWEIGHT", "NODECAP", "requested nodes (RES; 0 when only tasks are requested)", 0, ""),
    ("PROCWEIGHT", "PROCCAP", "requested processors (RES)", 0, ""),
    ("MEMWEIGHT", "MEMCAP", "requested memory in MB (RES)", 0, ""),
    ("SWAPWEIGHT", "SWAPCAP", "requested swap in MB (RES)", 0, ""),
    ("DISKWEIGHT", "DISKCAP", "requested disk in MB (RES)", 0, ""),
    ("PSWEIGHT", "PSCAP", "requested proc-seconds (RES)", 0, ""),
    ("PEWEIGHT", "PECAP", "requested processor-equivalents (RES)", 0, ""),
    ("WALLTIMEWEIGHT", "WALLTIMECAP", "requested wallclock seconds (RES)", 0, ""),
    ("UPROCWEIGHT", None, "the user's active processors (RES)", 0, ""),
    ("UJOBWEIGHT", None, "the user's active jobs (RES)", 0, ""),
    ("USAGEWEIGHT", "USAGECAP", "the usage component (never part of start priority in 3.3.1)", 1, "0"),
    ("CONSUMEDWEIGHT", "CONSUMEDCAP", "consumed wallclock of running jobs (USAGE)", 0, ""),
    ("REMAININGWEIGHT", "REMAININGCAP", "remaining wallclock of running jobs (USAGE)", 0, ""),
    ("PERCENTWEIGHT", "PERCENTCAP", "percent of wallclock used (USAGE)", 0, ""),
    ("USAGEEXECUTIONTIMEWEIGHT", "USAGEEXECUTIONTIMECAP", "execution time (USAGE)", 0, ""),
)

ROWS: list[Param] = [
    *group(
        "Reservations",
        P("RESERVATIONDEPTH", COUNT, 1, "priority reservations allowed in reservation stack <n>", scope=STACK,
          active=True, stack_default=0),
        P("RESERVATIONQOSLIST", StringList("<QOS>"), ("ALL",), "QOSes whose jobs use reservation stack <n> "
          "([ALL] = every QOS)", scope=STACK, active=True),
        PAR("RESERVATIONPOLICY", RESERVATION_POLICY, "CURRENTHIGHEST",
            "which jobs keep priority reservations between iterations", active=True),
        PAR("RESERVATIONRETRYTIME", TIME, 0, "how long a reserved job's start is retried after resource "
            "manager failures", active=True),
        PAR("RESERVATIONTHRESHOLDTYPE", Choice("NONE", "BYPASS", "QUEUETIME", "XFACTOR"), "NONE",
            "job measure that must exceed RESERVATIONTHRESHOLDVALUE to get a reservation", src="src"),
        PAR("RESERVATIONTHRESHOLDVALUE", INT, 0, "threshold for RESERVATIONTHRESHOLDTYPE", src="src"),
        P("RESDEPTH", Integer(1, 512), 24, "maximum reservations on any single node"),
        P("RESCTLPOLICY", Choice("ADMINONLY", "ANY"), "ADMINONLY", "who may create admin reservations"),
    ),
    *group(
        "Backfill",
        PAR("BACKFILLPOLICY", BACKFILL_POLICY, "FIRSTFIT", "backfill algorithm", active=True),
        PAR("BACKFILLDEPTH", COUNT, 0, "idle jobs evaluated for backfill in priority order (0 = all)",
            active=True),
        PAR("BACKFILLMETRIC", BACKFILL_METRIC, "PROCS", "what BESTFIT and GREEDY maximise", active=True),
        PAR("BACKFILLMAXSCHEDULES", COUNT, 10000, "cap on the schedules GREEDY evaluates", src="src",
            active=True),
        PAR("BACKFILLPROCFACTOR", INT, 0, "parsed by 3.3.1 but never used", src="src"),
        PAR("BACKFILLTYPE", STRING, None, "undocumented 3.3.1 parameter", src="src"),
        PAR("BFCHUNKDURATION", TIME, 0, "how long freed resources are kept for jobs of BFCHUNKSIZE or more "
            "(FIRSTFIT)"),
        PAR("BFCHUNKSIZE", COUNT, 0, "minimum job size that may use chunked resources (0 = no chunking)"),
        PAR("BFPRIORITYPOLICY", Choice.of(BackfillOrder), BackfillOrder.NONE,
            "order in which backfill picks jobs: NONE and RANDOM: priority order; DURATION: shortest "
            "planned runtime first (SJBF; the prediction when PREDICTIONPOLICY is on, else the request); "
            "HWDURATION: shortest request x the user's past runtime/request first (Maui's WCAccuracy). "
            "Maui 3.3.1 applies it to PREEMPT only; maui-py to every backfill policy",
            active=True),
    ),
    *group("Priority weights and caps", *_weights(_PRIORITY_WEIGHTS)),
    *group(
        "Priority policy",
        PAR("XFMINWCLIMIT", TIME, 120, "smallest wallclock limit used in the xfactor (3.3.1: only for jobs "
            "with a QOS)", src="src", other="doc: -1 (no limit)", active=True),
        PAR("JOBPRIOACCRUALPOLICY", Choice.of(AccrualPolicy), "QUEUEPOLICY",
            "when a job accrues queue-time priority", active=True),
        PAR("REJECTNEGPRIOJOBS", BOOL, False, "refuse to start jobs with negative priority", src="src",
            other="doc: TRUE", active=True),
        PAR("ENABLENEGJOBPRIORITY", BOOL, False, "let priorities fall below 1", active=True),
        PAR("USESYSTEMQUEUETIME", BOOL, False, "base queue time on eligibility (superseded by "
            "JOBPRIOACCRUALPOLICY)"),
        PAR("JOBPRIOF", STRING, None, "undocumented priority function", src="src"),
        PAR("DIRECTSPECWEIGHT", WEIGHT, 1, "Maui 3.0 weight of the direct (user) priority", src="src"),
        PAR("SERVICETARGETWEIGHT", WEIGHT, 0, "Maui 3.0 service target weight"),
        PAR("QUEUETIMETARGETWEIGHT", WEIGHT, 0, "Maui 3.0 queue-time target weight"),
        PAR("XFACTORTARGETWEIGHT", WEIGHT, 0, "Maui 3.0 xfactor target weight"),
        PAR("ATTRSTATEWEIGHT", WEIGHT, 0, "job state attribute weight (ATTR, not implemented)", src="src"),
        PAR("ATTRATTRWEIGHT", WEIGHT, 0, "job attribute weight (ATTR, not implemented)", src="src"),
        PAR("ATTRSTATECAP", CAP, 0.0, "cap of ATTRSTATEWEIGHT's factor", src="src"),
        PAR("ATTRATTRCAP", CAP, 0.0, "cap of ATTRATTRWEIGHT's factor", src="src"),
        P("USAGEPERCENTWEIGHT", WEIGHT, 0, "documented without description", origin="doc", src="doc"),
    ),
    *group(
        "Fair share",
        PAR("FSPOLICY", FS_POLICY, "NONE", "usage metric of fair share (NONE = off); a trailing % selects "
            "percentage-based fair share", active=True),
        PAR("FSINTERVAL", TIME, 43200, "length of one fair-share window", src="src", other="doc: 24:00:00",
            active=True),
        PAR("FSDEPTH", Integer(1, 32), 8, "number of fair-share windows (3.3.1 caps it at 24)", src="src",
            other="doc: 7", active=True),
        PAR("FSDECAY", Double(0.0, 1.0), 1.0, "decay factor applied per older window, in [0, 1]",
            active=True),
        PAR("FSCONFIGFILE", STRING, "fs.cfg", "legacy fair-share configuration file"),
        PAR("FSENFORCEMENT", STRING, None, "undocumented", src="src"),
        PAR("FSSECONDARYGROUPS", STRING, None, "undocumented", src="src"),
    ),
    *group(
        "Credentials and objects",
        OBJ("USERCFG", cred_attrs("USER"), "per-user attributes; USERCFG[DEFAULT] applies to users not "
            "listed", active=True, attr_aliases={"FLAGS": "JOBFLAGS"}),
        OBJ("GROUPCFG", cred_attrs("GROUP"), "per-group attributes", active=True,
            attr_aliases={"FLAGS": "JOBFLAGS"}),
        OBJ("ACCOUNTCFG", cred_attrs("ACCOUNT"), "per-account attributes", active=True,
            attr_aliases={"FLAGS": "JOBFLAGS"}),
        OBJ("CLASSCFG", cred_attrs("CLASS"), "per-class (queue) attributes", active=True,
            attr_aliases={"FLAGS": "JOBFLAGS"}),
        OBJ("QOSCFG", OBJECT_ATTRS["QOSCFG"], "per-QOS attributes", active=True,
            attr_aliases={"FLAGS": "QFLAGS"}),
        OBJ("SYSCFG", {k: replace(a, status=ACCEPTED) for k, a in cred_attrs("SYS").items()},
            "system-wide credential defaults (SYSCFG PLIST=... QDEF=...); not acted on by maui-py",
            attr_aliases={"FLAGS": "JOBFLAGS"}),
        OBJ("NODECFG", NODE_ATTRS, "per-node attributes; NODECFG[DEFAULT] applies to every node", active=True),
        OBJ("SRCFG", SR_ATTRS, "standing reservation <name>; its attributes may be spread over several lines",
            active=True),
        P("TIMEZONE", ZONE, None, "zone of SRCFG windows and setres times (an IANA name: UTC, "
          "Europe/Stockholm); unset: the host's zone, which Maui always uses", active=True,
          origin="maui-py", src="maui-py"),
    ),
    *group(
        "Throttling",
        PAR("SYSTEMMAXPROCPERJOB", INT, -1, "largest processor count of one job; larger jobs are deferred "
            "(-1 = no limit)", active=True),
        PAR("SYSTEMMAXJOBWALLTIME", TIME, -1, "largest wallclock limit of one job; longer jobs are deferred "
            "(-1 = no limit)", active=True),
        PAR("SYSTEMMAXPROCSECONDPERJOB", INT, -1, "largest proc-seconds of one job (-1 = no limit)"),
        P("SYSTEMDEFAULTJOBWALLTIME", TIME, 8639999, "wallclock limit of jobs that request none (not in the "
          "3.3.1 table; 3.3.1 uses its built-in 8639999 s)", src="src", other="doc: 10:00:00:00", origin="doc"),
        *(P(f"MAX{what}PER{cred}COUNT", LIMIT, None, f"Maui 3.0 hard limit of {text} per {cred.lower()} "
            "(superseded by *CFG limits)")
          for cred in ("USER", "GROUP", "ACCOUNT")
          for what, text in (("JOB", "active jobs"), ("PROC", "processors"), ("PROCSECOND", "proc-seconds"),
                             ("JOBQUEUED", "idle jobs"), ("NODE", "nodes"), ("PE", "processor-equivalents"))
          if cred == "USER" or what not in ("NODE", "PE")),
        *(P(f"MAX{what}PER{cred}POLICY", POLICY_MODE, "DEFAULT", f"Maui 3.0 switch of MAX{what}PER{cred}COUNT",
            src="src")
          for cred in ("USER", "GROUP", "ACCOUNT")
          for what in ("JOB", "PROC", "PROCSECOND", "JOBQUEUED", "NODE", "PE")
          if cred == "USER" or what not in ("NODE", "PE")),
        *(P(f"SMAX{what}PER{cred}COUNT", INT, 0, f"Maui 3.0 soft limit of MAX{what}PER{cred}COUNT", src="src")
          for cred in ("USER", "GROUP", "ACCOUNT")
          for what in ("JOB", "PROC", "PROCSECOND", "JOBQUEUED", "NODE", "PE")
          if cred == "USER" or what not in ("NODE", "PE")),
        P("MAXPSPERUSER", LIMIT, None, "Maui 3.0 outstanding proc-seconds per user", origin="doc", src="doc"),
        P("MAXWCPERUSER", TIME_LIMIT, None, "outstanding wallclock per user", origin="doc", src="doc"),
        P("MAXJOBPERITERATION", COUNT, 0, "jobs started per iteration (0 = no limit)", src="src"),
    ),
    *group(
        "Deferral and job control",
        P("DEFERTIME", TIME, 3600, "how long a deferred job stays deferred", active=True),
        P("DEFERCOUNT", INT, 24, "deferrals before a job is put on batch hold", active=True),
        P("DEFERSTARTCOUNT", INT, 1, "failed start attempts before a job is deferred", active=True),
        P("JOBMAXOVERRUN", TIME, 600, "how far a job may overrun its wallclock limit", src="src",
          other="doc: 0", active=True),
        PAR("JOBMAXSTARTTIME", TIME, -1, "how long a job may stay Starting before it is cancelled "
            "(-1 = no limit)", src="doc", other="src: MAX_MTIME (the same: no limit)"),
        P("WCVIOLATIONACTION", Choice("CANCEL", "PREEMPT"), "CANCEL", "what happens to a job past its wallclock"),
        P("PREEMPTPOLICY", Choice("REQUEUE", "SUSPEND", "CHECKPOINT", "OVERCOMMIT"), "REQUEUE",
          "how preemptible jobs are preempted"),
        P("JOBSYNCTIME", TIME, 600, "grace before a job's expected state is forced to the reported one"),
        P("JOBPURGETIME", TIME, 0, "how long a job no longer reported is kept"),
        P("PURGETIME", TIME, 0, "superseded by JOBPURGETIME and NODEPURGETIME", origin="doc", src="doc"),
        P("JOBAGGREGATIONTIME", TIME, 0, "minimum wait after a job event before scheduling"),
        P("MINDISPATCHTIME", TIME, 0, "undocumented", src="src"),
        P("METAMAXTASKS", COUNT, 0, "task limit of meta jobs", src="src"),
        PAR("JOBSIZEPOLICY", Choice("MINPROC", "MAXPROC", "NDMAXPROC"), "MINPROC", "how a malleable job's size "
            "is chosen", src="src"),
        PAR("ENABLEMULTINODEJOBS", BOOL, True, "allow jobs spanning several nodes"),
        PAR("ENABLEMULTIREQJOBS", BOOL, False, "allow jobs with several resource requests"),
        P("DEFAULTCLASSLIST", NAMES, (), "classes of nodes whose resource manager reports none",
          other="src: [DEFAULT:1]", src="doc"),
        P("PARIGNQUEUELIST", NAMES, (), "queues ignored by partitions", src="src"),
        PAR("IGNPBSGROUPLIST", STRING, None, "undocumented", src="src"),
        PAR("RESOURCELIMITPOLICY", StringList("<RES>:<POLICY>:<ACTION>", seps=" \t,"), (),
            "what to do with jobs using more than they requested"),
        P("RESLIMITPOLICY", STRING, None, "undocumented", src="src"),
    ),
]
