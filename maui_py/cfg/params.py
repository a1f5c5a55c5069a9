"""THE parameter table of maui.cfg, in the style of Maui's MConst.c `MCfg[]`.

Every parameter maui-py knows is one `Param` row: name, value type (which parses and names its
form), default, scope, a one-line doc, where the default comes from, and whether maui-py acts on
it. `*CFG` parameters carry an attribute table of `Attr` rows with the same fields. Parsing,
validation, defaults, showconfig and docs/config-reference.md are all driven from here, so a row
added here is parsed, checked, shown and documented without touching any other file.

Columns:
  scope           "global"; "partition" (index = partition name, none = all: Maui's mxoPar);
                  "stack" (numeric index: RESERVATIONDEPTH[n]); "object" (index = object name:
                  USERCFG[john]); "indexed" (legacy per-index forms such as QOSPRIORITY[x]).
  default_source  "same" (docs and 3.3.1 agree), "src" (the 3.3.1 source; the docs differ or are
                  silent), "doc" (the documentation; the source differs or lacks it), "maui-py".
                  `other_default` records the losing value when docs and source disagree.
  status          "active": maui-py acts on it; "accepted": parsed, validated, shown, reported
                  as "accepted but not acted on by maui-py".
  origin          "src" (in 3.3.1), "doc" (documented only), "maui-py" (our addition).
  maps_to         legacy per-attribute forms (SRSTARTTIME[x], RMTYPE[x], QOSPRIORITY[x]) are
                  stored as that attribute of that object (SRCFG[x] STARTTIME=...).
  acts_in         the module that acts on an active row or attribute (ACTS_IN, ATTR_ACTS_IN below).

The row types and builders are in rows.py, policy values in choices.py.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from . import params_predict, params_queues, params_runtime
from .choices import (AccrualPolicy, BackfillMetric, BackfillOrder, BackfillPolicy, FairSharePolicy, NodeAllocation,
                      MauiCompat, PredictionPolicy, ReservationPolicy)
from .rows import (  # the scopes, statuses and row types are also read from here (loader.py, cli/)
    ACCEPTED, ACTIVE, BOOL, CAP, COMPONENT_WEIGHT, COUNT, DOUBLE, FSTARGET, GLOBAL, HOSTS, INDEXED, INT, LIMIT, NAME,
    NAMES, OBJ, OBJECT, P, PAR, PARTITION, QLIST, SCOPES, STACK, STRING, TIME, TIME_LIMIT, USERS, WEIGHT, Attr, Param,
    _a, _group,
)
from .zone import ZONE
from .values import (
    INFINITY, AclTime, Choice, Days, Double, EnumList, Flags, FsPolicy, Integer, PolicyList, ResourceSpec, RmType,
    PeriodOffset, StringList, nearest,
)

@dataclass(frozen=True)
class Alias:
    """Another spelling of a canonical parameter; `warn` when Maui 3.3.1 did not know it."""

    name: str
    target: str
    note: str
    warn: bool = False


def _bool_aliases(true: str, false: str, why: str = "") -> dict[str, tuple[str, str]]:
    """Boolean spellings of an enumeration (BACKFILLPOLICY ON), with the warning each gets."""
    aliases = {w: (true, f"a true boolean is read as {true}{why}") for w in ("TRUE", "ON", "YES", "1")}
    aliases.update({w: (false, f"a false boolean is read as {false}{why}") for w in ("FALSE", "OFF", "NO", "0")})
    return aliases


_BESTTIMEFIT = "is not implemented in Maui 3.3.1, which logs an error and runs FIRSTFIT; maui-py runs FIRSTFIT"
BACKFILL_POLICY = Choice.of(BackfillPolicy, aliases={
    "BESTTIMEFIT": ("FIRSTFIT", "BESTTIMEFIT " + _BESTTIMEFIT),
    "LAZY": ("FIRSTFIT", "LAZY " + _BESTTIMEFIT),
    **_bool_aliases("FIRSTFIT", "NONE"),
}, inactive={"PREEMPT": "maui-py preempts nothing; it backfills as FIRSTFIT"})
BACKFILL_METRIC = Choice.of(BackfillMetric, aliases={
    "NODES": ("PROCS", "NODES falls through to PROCS in Maui 3.3.1; read as PROCS"),
    "PE": ("PROCS", "PE is documented but not recognised by Maui 3.3.1, which keeps PROCS; read as PROCS"),
    "PESECONDS": ("PROCS", "PESECONDS is documented but not recognised by Maui 3.3.1, which keeps PROCS; "
                           "read as PROCS"),
})
RESERVATION_POLICY = Choice.of(ReservationPolicy, aliases={
    "DEFAULT": ("CURRENTHIGHEST", "DEFAULT is 3.3.1's name for the default policy; read as CURRENTHIGHEST"),
})
FS_POLICY = FsPolicy(FairSharePolicy, aliases={
    "PSDEDICATED": ("DEDICATEDPS", "PSDEDICATED (from a maui.cfg.dist comment) is not a Maui value; "
                                   "read as DEDICATEDPS"),
    "PSUTILIZED": ("UTILIZEDPS", "PSUTILIZED is not a Maui value; read as UTILIZEDPS"),
    **_bool_aliases("DEDICATEDPS", "NONE", " (as Maui 3.3.1 does)"),
})
NODE_ALLOCATION = Choice.of(NodeAllocation, aliases={
    name: ("LASTAVAILABLE", f"{name} is a Maui policy maui-py does not implement; read as LASTAVAILABLE")
    for name in ("LOCAL", "CONTIGUOUS", "MAXBALANCE", "MINLOCAL", "MINGLOBAL", "FIRSTSET")
})
NODE_ACCESS = Choice("SHARED", "SINGLEJOB", "SINGLETASK", "SINGLEUSER")
POLICY_MODE = Choice("DEFAULT", "OFF", "ON", "SOFT", "HARD", "EXEMPT", aliases=_bool_aliases("ON", "OFF"))
RM_TYPE = RmType(Choice("PBS", "SLURM", "WIKI", "LL", "SGE", "SSS", "RMS", "LSF", "NATIVE", "OTHER", aliases={
    "TORQUE": ("PBS", "TORQUE is read as PBS (the 3.3.1 type for OpenPBS, TORQUE and PBSPro)"),
    "OPENPBS": ("PBS", "OPENPBS is read as PBS"),
    "PBSPRO": ("PBS", "PBSPRO is read as PBS"),
}), ("RMS",))
RM_AUTH = Choice("CHECKSUM", "PKI", "SECUREPORT", "NONE")
SR_ACCESS = Choice("DEDICATED", "SHARED")
SR_PERIOD = Choice("DAY", "WEEK", "INFINITY")
SERVER_MODE = Choice("NORMAL", "TEST", "SIMULATION", "PROFILE", "SINGLESTEP")

JOB_FLAGS = Flags("BENCHMARK", "BACKFILL", "SPAN", "ADVRES", "NOQUEUE", "HOSTLIST", "RESMAP",
                  "SHAREDRESOURCES", "BYNAME", "BESTEFFORT", "RESTARTABLE", "PREEMPTEE", "PREEMPTOR",
                  "DEDICATEDNODE", "PRESTART", "REMOTE", "NASINGLETASK", "SPVIOLATION", "IGNNODEPOLICIES",
                  "NORMSTART", "GLOBALQUEUE", "DEDICATED")
QOS_FLAGS = Flags("IGNJOBPERUSER", "IGNPROCPERUSER", "IGNNODEPERUSER", "IGNPSPERUSER", "IGNJOBQUEUEDPERUSER",
                  "IGNSYSMAXPROC", "IGNSYSMAXTIME", "IGNSYSMAXPS", "IGNSRMAXTIME", "IGNUSER", "IGNSYSTEM",
                  "IGNALL", "PREEMPTOR", "PREEMPTEE", "DEDICATED", "RESERVEALWAYS", "USERESERVED", "NOBF",
                  "NORESERVATION", "RESTARTPREEMPT", "NTR", "RUNNOW", "PREEMPTSPV", "IGNHOSTLIST",
                  acted=("NOBF", "NORESERVATION", "RESERVEALWAYS"))
RES_FLAGS = Flags("STANDINGRES", "SINGLEUSE", "BYNAME", "META", "PREEMPTEE", "TIMEFLEX", "SPACEFLEX",
                  "DEDICATEDNODE", "DEDICATEDRESOURCE", "ADVRES", "FORCE", "OWNERPREEMPT", acted=())
SIM_FLAGS = Flags("IGNHOSTLIST", "IGNCLASS", "IGNQOS", "IGNMODE", "IGNFEATURES", "IGNFRAME", "IGNALL")
LOG_FACILITY = EnumList(Choice("fCORE", "fSCHED", "fSOCK", "fUI", "fLL", "fSDR", "fCONFIG", "fSTAT", "fSIM",
                             "fSTRUCT", "fFS", "fCKPT", "fBANK", "fAM", "fRM", "fPBS", "fWIKI", "fSGE", "fSSS",
                             "fLSF", "fNAT", "fALL"))


# ----------------------------------------------------------------------------------------------
# attribute tables

def _limits(override: bool) -> list[Attr]:
    """The throttling limits of MCredAttr: MAX*, idle MAXI*, and (QOS) override OMAX* forms."""
    rows = []
    for key, what, vtype, active in (
            ("JOB", "jobs", LIMIT, True), ("NODE", "nodes", LIMIT, True), ("PE", "processor-equivalents", LIMIT, False),
            ("PROC", "processors", LIMIT, True), ("PS", "outstanding proc-seconds", LIMIT, True),
            ("WC", "outstanding wallclock", TIME_LIMIT, True), ("MEM", "memory (MB)", LIMIT, True)):
        rows.append(_a(f"MAX{key}", vtype, f"limit on active {what}", active=active, multidim=True))
    for key, what, vtype, active in (
            ("JOB", "jobs", LIMIT, True), ("NODE", "nodes", LIMIT, True), ("PE", "processor-equivalents", LIMIT, False),
            ("PROC", "processors", LIMIT, True), ("PS", "proc-seconds", LIMIT, True),
            ("WC", "wallclock", TIME_LIMIT, False), ("MEM", "memory (MB)", LIMIT, False)):
        rows.append(_a(f"MAXI{key}", vtype, f"limit on idle (eligible) {what}", active=active, multidim=True))
    for prefix, scope in (("OMAX", "active"), ("OMAXI", "idle"), ("OMAXJ", "per-job")):
        for key, what, vtype in (("JOB", "jobs", LIMIT), ("NODE", "nodes", LIMIT), ("PE", "PEs", LIMIT),
                                 ("PROC", "processors", LIMIT), ("PS", "proc-seconds", LIMIT),
                                 ("WC", "wallclock", TIME_LIMIT), ("MEM", "memory", LIMIT)):
            if prefix == "OMAXJ" and key == "JOB":
                continue
            rows.append(_a(f"{prefix}{key}", vtype, f"override limit on {scope} {what} (supersedes other credentials)",
                           active=override and prefix != "OMAXJ" and key != "PE"))
    return rows


def _cred_attrs(kind: str) -> dict[str, Attr]:
    """MCredAttr (shared by USER/GROUP/ACCOUNT/CLASS/QOS/SYS) plus the kind-specific attributes."""
    rows = [
        _a("PRIORITY", INT, "credential priority (CRED priority component)", 0, active=True),
        *_limits(override=kind == "QOS"),
        _a("MINPROC", COUNT, "minimum processors a job must request"),
        _a("FSTARGET", FSTARGET, "fair-share target in percent; suffix + floor, - ceiling, ^ absolute cap, % relative cap",
           active=True),
        _a("QLIST", QLIST, "QOSes jobs of this credential may use"),
        _a("QDEF", NAME, "default QOS of jobs of this credential"),
        _a("PLIST", NAMES, "partitions jobs of this credential may use"),
        _a("PDEF", NAME, "default partition"),
        _a("ALIST", NAMES, "accounts this credential may use"),
        _a("ADEF", NAME, "default account"),
        _a("JOBFLAGS", JOB_FLAGS, "flags set on every job of this credential (the docs call it FLAGS)"),
        _a("MAXJOBPERUSER", LIMIT, "per-user active job limit within this credential"),
        _a("MAXNODEPERUSER", LIMIT, "per-user node limit within this credential"),
        _a("MAXPROCPERUSER", LIMIT, "per-user processor limit within this credential"),
        _a("MAXPROCPERNODEPERQUEUE", LIMIT, "processors per node per queue"),
        _a("OVERRUN", TIME, "wallclock overrun allowed to jobs of this credential"),
        _a("ID", STRING, "external identifier"),
        _a("DEFAULT.WCLIMIT", TIME, "wallclock limit given to jobs that request none"
           + (" (Slurm: pushed with the start as the job's TimeLimit)" if kind == "CLASS" else ""),
           active=kind == "CLASS"),
        _a("MAX.WCLIMIT", TIME, "largest wallclock limit a job may request"
           + (" (a job over it gets a batch hold and is never started)" if kind == "CLASS" else ""),
           active=kind == "CLASS"),
        _a("MAXPROCPERNODE", COUNT, "processors per node a job may use"),
        _a("MAXNODEPERJOB", COUNT, "nodes a single job may request"),
        _a("MAXPROCPERJOB", COUNT, "processors a single job may request"),
    ]
    if kind == "GROUP":
        rows.append(_a("CLASSWEIGHT", WEIGHT, "CLASSWEIGHT used for this group's jobs instead of the global one"))
    if kind == "CLASS":
        rows += [
            _a("OCNODE", STRING, "overcommit node"),
            _a("DEFAULT.FEATURES", NAMES, "node features added to jobs of this class"),
            _a("HOSTLIST", HOSTS, "hosts this class may run on"),
            _a("NAME", STRING, "display name"),
            _a("NODEACCESSPOLICY", NODE_ACCESS, "node sharing policy for jobs of this class"),
            _a("OCDPROCFACTOR", DOUBLE, "overcommit dedicated-processor factor"),
            _a("STATE", STRING, "class state"),
            _a("WCOVERRUN", TIME, "wallclock overrun allowed to jobs of this class"),
        ]
    if kind == "QOS":
        rows += [
            _a("XFWEIGHT", WEIGHT, "added to XFACTORWEIGHT for jobs of this QOS", active=True),
            _a("QTWEIGHT", WEIGHT, "added to QUEUETIMEWEIGHT for jobs of this QOS", active=True),
            _a("XFTARGET", DOUBLE, "target expansion factor (TARG priority component)"),
            _a("QTTARGET", TIME, "target queue time (TARG priority component); 3.3.1 reads plain seconds"),
            _a("QFLAGS", QOS_FLAGS, "QOS flags: NOBF, NORESERVATION and RESERVEALWAYS act; the others "
               "(PREEMPTOR, IGN* ...) are read and noted",
               active=True),
            _a("PREDICTION", Choice.of(PredictionPolicy), "PREDICTIONPOLICY for jobs of this QOS (maui-py)",
               active=True),
        ]
    return {row.name: row for row in rows}


def _attrs(*rows: Attr) -> dict[str, Attr]:
    return {row.name: row for row in rows}


_ACL = StringList("<NAME>", seps=" \t,:|")
_SR_NOT_ACTED = frozenset({"CHARGEACCOUNT", "IDLETIME", "JOBATTRLIST", "MAXTIME", "NAME", "PROCLIMIT", "STIDLETIME",
                           "STTOTALTIME", "TASKLIMIT", "TPN"})
"""SRCFG attributes maui-py parses but does not act on (maui_py.policy.standing reads none of them)."""
SR_ATTRS = _attrs(*(replace(row, status=ACTIVE if row.name not in _SR_NOT_ACTED else ACCEPTED) for row in (
    _a("ACCESS", SR_ACCESS, "SHARED lets the reservation use resources held by other non-job reservations",
       "DEDICATED"),
    _a("ACCOUNTLIST", _ACL, "accounts whose jobs may use the reserved resources"),
    _a("CHARGEACCOUNT", STRING, "account charged for idle reserved cycles"),
    _a("CLASSLIST", _ACL, "classes whose jobs may use the reserved resources"),
    _a("DAYS", Days(), "days of the week the reservation is active", ("ALL",)),
    _a("DEPTH", COUNT, "number of periods created ahead", 2),
    _a("ENDTIME", PeriodOffset(), "end within the period ([[[DD:]HH:]MM:]SS)", 86400, src="doc", other="src: 0"),
    _a("FLAGS", RES_FLAGS, "reservation flags (SINGLEUSE, BYNAME, PREEMPTEE, TIMEFLEX, FORCE, OWNERPREEMPT ...): "
       "read and noted, none acted on"),
    _a("GROUPLIST", _ACL, "groups whose jobs may use the reserved resources"),
    _a("HOSTLIST", HOSTS, "hosts to reserve: node names, Slurm hostlists (node[01-04,7]) or, when "
       "clearly one (^..., $, *, |, ...), Maui regular expressions searched in the node names", ("ALL",)),
    _a("IDLETIME", TIME, "idle time before the reservation is released"),
    _a("JOBATTRLIST", _ACL, "job attributes granting access"),
    _a("MAXTIME", AclTime(), "longest job overlap allowed (legacy SRMAXTIME)"),
    _a("NAME", STRING, "reservation name"),
    _a("NODEFEATURES", _ACL, "node features required of reserved nodes"),
    _a("OWNER", STRING, "owner as <CREDTYPE>:<CREDID>"),
    _a("PARTITION", STRING, "partition to reserve in", "ALL"),
    _a("PERIOD", SR_PERIOD, "period of the reservation", "DAY"),
    _a("PRIORITY", INT, "reservation priority", 0),
    _a("PROCLIMIT", LIMIT, "processor limit of jobs allowed in"),
    _a("QOSLIST", _ACL, "QOSes whose jobs may use the reserved resources"),
    _a("RESOURCES", ResourceSpec(), "resources of one reserved task (PROCS:-1 = every processor of the node)",
       (("PROCS", -1),)),
    _a("STARTTIME", PeriodOffset(), "start within the period ([[[DD:]HH:]MM:]SS)", 0),
    _a("STIDLETIME", TIME, "statistics: idle time"),
    _a("STTOTALTIME", TIME, "statistics: total time"),
    _a("TASKCOUNT", COUNT, "tasks to reserve (0 = all matching resources)", 0),
    _a("TASKLIMIT", COUNT, "task limit of jobs allowed in"),
    _a("TIMELIMIT", AclTime(), "longest overlap of a job with the reservation (-1 = no time-based access)", -1),
    _a("TPN", COUNT, "minimum tasks per node", 0),
    _a("USERLIST", _ACL, "users whose jobs may use the reserved resources"),
    _a("WENDTIME", TIME, "end as an offset in the week (PERIOD WEEK)"),
    _a("WSTARTTIME", TIME, "start as an offset in the week (PERIOD WEEK)"),
)), _a("TRIGGER", STRING, "Moab 4 trigger; not in Maui 3.3.1"))

RM_ATTRS = _attrs(
    _a("TYPE", RM_TYPE, "resource manager type (maui-py: SLURM or PBS for TORQUE)", active=True),
    _a("HOST", STRING, "host of the resource manager server", active=True),
    _a("PORT", COUNT, "port of the resource manager server (0 = the type's default)", active=True),
    _a("AUTHTYPE", RM_AUTH, "authentication between scheduler and resource manager"),
    _a("ASYNCJOBSTART", BOOL, "start jobs without waiting for the resource manager's answer"),
    _a("CONFIGFILE", STRING, "resource manager configuration file", active=True),
    _a("CSALGO", STRING, "checksum algorithm"),
    _a("CSKEY", STRING, "checksum key"),
    _a("EPORT", COUNT, "event port"),
    _a("LOCALDISKFS", STRING, "file system reported as local disk"),
    _a("MINETIME", TIME, "minimum time between resource manager events"),
    _a("NAME", STRING, "resource manager name"),
    _a("NMPORT", COUNT, "node manager port"),
    _a("NMSERVER", STRING, "node manager server"),
    _a("SOCKETPROTOCOL", STRING, "socket protocol"),
    _a("SUSPENDSIG", STRING, "signal used to suspend jobs"),
    _a("TIMEOUT", TIME, "seconds to wait for the resource manager", 15, src="doc", active=True,
       other="doc text: 30 seconds"),
    _a("VERSION", STRING, "resource manager version"),
    _a("WIREPROTOCOL", STRING, "wire protocol"),
    _a("HOLDALL", BOOL, "Slurm: every job enters held by maui-py's job_submit.lua (the gate), so a release "
       "starts it; FALSE: only holds maui-py set are released", True, active=True, src="maui-py"),
    _a("VERIFYTIMEOUT", TIME, "Slurm: how long apply() waits after a release for the jobs to leave PENDING "
       "(0: does not wait)", 0, active=True, src="maui-py"),
    _a("MIRRORRESERVATIONS", BOOL, "Slurm: mirror each priority reservation as a Slurm reservation "
       "maui.<job>", False, active=True, src="maui-py"),
    _a("READRESERVATIONS", BOOL, "Slurm: put Slurm's own reservations into the snapshot", True, active=True,
       src="maui-py"),
)

NODE_ATTRS = _attrs(
    _a("ACCESS", NODE_ACCESS, "node access policy for this node"),
    _a("ARCH", STRING, "architecture"),
    _a("AVLCLASS", STRING, "available classes"),
    _a("AVLMEMWEIGHT", DOUBLE, "node priority weight of available memory"),
    _a("AVLPROCWEIGHT", DOUBLE, "node priority weight of available processors"),
    _a("CFGCLASS", STRING, "configured classes"),
    _a("CFGDISK", COUNT, "configured disk (MB)"),
    _a("CFGMEM", COUNT, "configured memory (MB)"),
    _a("CFGMEMWEIGHT", DOUBLE, "node priority weight of configured memory"),
    _a("CFGPROCWEIGHT", DOUBLE, "node priority weight of configured processors"),
    _a("CFGSWAP", COUNT, "configured swap (MB)"),
    _a("EXTLOAD", DOUBLE, "external load"),
    _a("FEATURES", NAMES, "node features, added to those the resource manager reports", active=True),
    _a("FRAME", COUNT, "frame number"),
    _a("GRES", STRING, "generic resources"),
    _a("LOAD", DOUBLE, "load"),
    _a("LOADWEIGHT", DOUBLE, "node priority weight of load"),
    _a("MAXJOB", COUNT, "jobs allowed on the node at once"),
    _a("MAXJOBPERUSER", COUNT, "jobs per user allowed on the node"),
    _a("MAXLOAD", DOUBLE, "load at which the node is marked busy"),
    _a("MAXPEPERJOB", DOUBLE, "processor-equivalents one job may use on the node"),
    _a("MAXPROC", COUNT, "processors usable on the node"),
    _a("MAXPROCPERCLASS", COUNT, "processors per class on the node"),
    _a("MAXPROCPERUSER", COUNT, "processors per user on the node"),
    _a("NETWORK", STRING, "network"),
    _a("NODEID", STRING, "node id"),
    _a("NODESTATE", STRING, "node state"),
    _a("NODETYPE", STRING, "node type (for allocation managers)"),
    _a("OS", STRING, "operating system"),
    _a("PARTITION", STRING, "partition (class) the node serves", active=True),
    _a("PRIORITY", DOUBLE, "node priority (NODEALLOCATIONPOLICY PRIORITY)", active=True),
    _a("PRIORITYF", STRING, "node priority function, e.g. 'SPEED + .01 * AMEM - 10 * JOBCOUNT'"),
    _a("PRIOWEIGHT", DOUBLE, "weight of PRIORITY in the node priority function"),
    _a("PROCSPEED", COUNT, "processor speed"),
    _a("RADISK", COUNT, "available disk reported"),
    _a("RAMEM", COUNT, "available memory reported"),
    _a("RAPROC", COUNT, "available processors reported"),
    _a("RASWAP", COUNT, "available swap reported"),
    _a("RCDISK", COUNT, "configured disk reported"),
    _a("RCMEM", COUNT, "configured memory reported"),
    _a("RCPROC", COUNT, "configured processors reported"),
    _a("RCSWAP", COUNT, "configured swap reported"),
    _a("RESOURCES", ResourceSpec(), "generic resources of the node"),
    _a("SIZE", COUNT, "node size"),
    _a("SLOT", COUNT, "slot number in its frame"),
    _a("SPEED", DOUBLE, "relative machine speed", active=True),
    _a("SPEEDWEIGHT", DOUBLE, "node priority weight of speed"),
    _a("STATACTIVETIME", COUNT, "statistics: active time"),
    _a("STATTOTALTIME", COUNT, "statistics: total time"),
    _a("STATUPTIME", COUNT, "statistics: up time"),
    _a("TASKCOUNT", COUNT, "task count"),
    _a("USAGEWEIGHT", DOUBLE, "node priority weight of usage"),
)

SCHED_ATTRS = _attrs(
    _a("CPVERSION", STRING, "checkpoint file version"),
    _a("FBSERVER", STRING, "fallback server"),
    _a("HOMEDIR", STRING, "scheduler home directory"),
    _a("MODE", SERVER_MODE, "server mode", "NORMAL"),
    _a("NAME", STRING, "scheduler name"),
    _a("SERVER", STRING, "<HOST>:<PORT> of the scheduler"),
)

CLIENT_ATTRS = _attrs(
    _a("CSALGO", STRING, "checksum algorithm"),
    _a("CSKEY", STRING, "shared secret key (belongs in maui-private.cfg)"),
    _a("TIMEOUT", TIME, "client timeout"),
    _a("FLAGS", STRING, "client flags"),
)

AM_ATTRS = _attrs(*(_a(name, vtype, doc) for name, vtype, doc in (
    ("APPENDMACHINENAME", BOOL, "append the machine name to accounts"),
    ("CHARGEPOLICY", STRING, "what is charged"), ("CONFIGFILE", STRING, "allocation manager configuration"),
    ("CSALGO", STRING, "checksum algorithm"), ("CSKEY", STRING, "checksum key"),
    ("DEFERJOBONFAILURE", BOOL, "defer jobs when the allocation manager fails"),
    ("FALLBACKACCOUNT", STRING, "account used when the job's is exhausted"),
    ("FLUSHINTERVAL", TIME, "charge flush interval"), ("HOST", STRING, "allocation manager host"),
    ("JFACTION", STRING, "action on job failure"), ("PORT", COUNT, "allocation manager port"),
    ("SERVER", STRING, "allocation manager server"), ("SOCKETPROTOCOL", STRING, "socket protocol"),
    ("TIMEOUT", TIME, "allocation manager timeout"), ("TYPE", STRING, "QBANK|RESD|FILE|GOLD"),
    ("WIREPROTOCOL", STRING, "wire protocol"))))


# ----------------------------------------------------------------------------------------------
# the table

def LEGACY(name: str, target: str, attr: str, doc: str = "", *, origin: str = "src") -> Param:
    """A deprecated per-attribute form, stored as attribute `attr` of object `target`."""
    row = _OBJECT_ATTRS[target][attr]
    return Param(name, row.type, row.default, INDEXED, doc or f"legacy form of {target}[<NAME>] {attr}=",
                 row.default_source, row.status, origin, maps_to=(target, attr))


_OBJECT_ATTRS = {"SRCFG": SR_ATTRS, "RMCFG": RM_ATTRS, "QOSCFG": _cred_attrs("QOS")}


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

TABLE: list[Param] = [
    *_group(
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
    *_group(
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
    *_group("Priority weights and caps", *_weights(_PRIORITY_WEIGHTS)),
    *_group(
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
    *_group(
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
    *_group(
        "Credentials and objects",
        OBJ("USERCFG", _cred_attrs("USER"), "per-user attributes; USERCFG[DEFAULT] applies to users not "
            "listed", active=True, attr_aliases={"FLAGS": "JOBFLAGS"}),
        OBJ("GROUPCFG", _cred_attrs("GROUP"), "per-group attributes", active=True,
            attr_aliases={"FLAGS": "JOBFLAGS"}),
        OBJ("ACCOUNTCFG", _cred_attrs("ACCOUNT"), "per-account attributes", active=True,
            attr_aliases={"FLAGS": "JOBFLAGS"}),
        OBJ("CLASSCFG", _cred_attrs("CLASS"), "per-class (queue) attributes", active=True,
            attr_aliases={"FLAGS": "JOBFLAGS"}),
        OBJ("QOSCFG", _OBJECT_ATTRS["QOSCFG"], "per-QOS attributes", active=True,
            attr_aliases={"FLAGS": "QFLAGS"}),
        OBJ("SYSCFG", {k: replace(a, status=ACCEPTED) for k, a in _cred_attrs("SYS").items()},
            "system-wide credential defaults (SYSCFG PLIST=... QDEF=...); not acted on by maui-py",
            attr_aliases={"FLAGS": "JOBFLAGS"}),
        OBJ("NODECFG", NODE_ATTRS, "per-node attributes; NODECFG[DEFAULT] applies to every node", active=True),
        OBJ("SRCFG", SR_ATTRS, "standing reservation <name>; its attributes may be spread over several lines",
            active=True),
        P("TIMEZONE", ZONE, None, "zone of SRCFG windows and setres times (an IANA name: UTC, "
          "Europe/Stockholm); unset: the host's zone, which Maui always uses", active=True,
          origin="maui-py", src="maui-py"),
    ),
    *_group(
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
    *_group(
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
    *_group(
        "Node allocation and access",
        PAR("NODEALLOCATIONPOLICY", NODE_ALLOCATION, "LASTAVAILABLE", "how nodes are chosen for a job",
            active=True),
        P("MAUICOMPAT", Choice.of(MauiCompat), MauiCompat.NONE, "3.3: Maui 3.3's own rules where maui-py "
          "deliberately differs: a reservation on the last feasible nodes by index, a start on the "
          "longest-available nodes, backfill window by window, shortest first (docs/compatibility.md); "
          "NONE: maui-py's rules", active=True, origin="maui-py", src="maui-py"),
        P("NODEACCESSPOLICY", NODE_ACCESS, "SHARED", "how nodes are shared between jobs"),
        PAR("NODEAVAILABILITYPOLICY", PolicyList(Choice("COMBINED", "DEDICATED", "UTILIZED"), {
            "PROC": "PROC", "PROCS": "PROC", "MEM": "MEM", "SWAP": "SWAP", "DISK": "DISK"}), ("COMBINED",),
            "how node availability is computed per resource"),
        PAR("JOBNODEMATCHPOLICY", EnumList(Choice("EXACTNODE", "EXACTPROC")), (), "extra node selection "
            "constraints"),
        PAR("TASKDISTRIBUTIONPOLICY", Choice("DEFAULT", "LOCAL", "ARBGEO", "PACK", "ROUNDROBIN"), "DEFAULT",
            "how tasks are mapped to allocated nodes"),
        PAR("NODELOADPOLICY", Choice("ADJUSTSTATE", "ADJUSTPROCS"), "ADJUSTSTATE", "whether load changes a "
            "node's state or its processors"),
        PAR("NODESETPOLICY", Choice("ONEOF", "FIRSTOF", "ANYOF"), "ONEOF", "how node sets constrain allocation",
            src="src", other="doc: [NONE]"),
        PAR("NODESETATTRIBUTE", Choice("FEATURE", "MEMORY", "PROCSPEED", "NETWORK", "NONE"), "NONE",
            "node attribute that defines node sets"),
        PAR("NODESETLIST", NAMES, (), "attribute values that form node sets"),
        PAR("NODESETDELAY", TIME, 0, "how long a job waits for a node set"),
        PAR("NODESETPRIORITYTYPE", Choice("BESTFIT", "WORSTFIT", "BESTRESOURCE", "MINLOSS"), "MINLOSS",
            "how a node set is picked"),
        PAR("NODESETTOLERANCE", DOUBLE, 0.0, "processor speed tolerance within a node set"),
        P("NODEMAXLOAD", DOUBLE, 0.0, "load at which a node is marked busy (0 = never)"),
        P("NODECPUOVERCOMMITFACTOR", DOUBLE, None, "processor overcommit factor", src="src"),
        P("NODEMEMOVERCOMMITFACTOR", DOUBLE, None, "memory overcommit factor", src="src"),
        P("NODEUNTRACKEDLOADFACTOR", DOUBLE, 1.2, "weight of load not explained by jobs", src="src"),
        P("NODEPOLLFREQUENCY", COUNT, 0, "iterations between node manager queries (0 = every one)"),
        P("NODEDOWNSTATEDELAYTIME", TIME, 3600, "how long down nodes are assumed unavailable", src="src",
          other="doc: 0:00:00"),
        P("NODESYNCTIME", TIME, 600, "grace before a node's expected state is forced to the reported one"),
        P("NODEPURGETIME", TIME, INFINITY, "how long a node no longer reported is kept", src="src"),
        P("NODEALLOCMAXPS", BOOL, False, "undocumented", src="src"),
        P("ALLOCLOCALITYPOLICY", Choice("BESTEFFORT", "FORCED", "RMSPECIFIC", "NONE"), "NONE", "undocumented",
          src="src"),
        P("USEMACHINESPEED", BOOL, False, "scale wallclock limits by node speed"),
        P("USEMACHINESPEEDFORFS", BOOL, False, "scale fair-share usage by node speed"),
        P("USELOCALMACHINEPRIORITY", BOOL, False, "use the local node priority hook", src="src"),
        PAR("USECPUTIME", BOOL, False, "undocumented", src="src"),
        P("PARTITIONMODE", BOOL, False, "enable partitions (SLURM guide: PARTITIONMODE ON)", origin="doc",
          src="doc"),
        P("FEATURENODETYPEHEADER", STRING, None, "node feature prefix giving the node type"),
        P("FEATUREPARTITIONHEADER", STRING, None, "node feature prefix giving the partition"),
        P("FEATUREPROCSPEEDHEADER", STRING, None, "node feature prefix giving the processor speed"),
        P("COMPUTEHOSTS", HOSTS, (), "hosts used for computing", src="src"),
        P("DEFAULTDOMAIN", STRING, None, "domain appended to short host names"),
        P("QOSFEATURES", StringList("<FEATURE>"), (), "legacy node features required by a QOS",
          scope=INDEXED, origin="doc", src="doc"),
    ),
    *_group(
        "Resource manager",
        OBJ("RMCFG", RM_ATTRS, "resource manager <name>: TYPE=SLURM or TYPE=PBS (TORQUE), HOST, PORT ...",
            active=True),
        P("RMPOLLINTERVAL", TIME, 60, "scheduling iteration interval (resource manager poll)", active=True),
        LEGACY("RMTYPE", "RMCFG", "TYPE", "legacy RMCFG[<n>] TYPE= (3.3.1 docs default LL)"),
        LEGACY("RMHOST", "RMCFG", "HOST"),
        LEGACY("RMPORT", "RMCFG", "PORT"),
        LEGACY("RMAUTHTYPE", "RMCFG", "AUTHTYPE"),
        LEGACY("RMNMPORT", "RMCFG", "NMPORT"),
        LEGACY("RMTIMEOUT", "RMCFG", "TIMEOUT"),
        LEGACY("RMCONFIGFILE", "RMCFG", "CONFIGFILE"),
        LEGACY("RMEPORT", "RMCFG", "EPORT"),
        LEGACY("RMLOCALDISKFS", "RMCFG", "LOCALDISKFS"),
        LEGACY("RMNAME", "RMCFG", "NAME"),
        OBJ("SCHEDCFG", SCHED_ATTRS, "scheduler attributes: SERVER=<host>:<port> MODE=..."),
        OBJ("AMCFG", AM_ATTRS, "allocation manager interface", origin="doc"),
    ),
    *_group(
        "Server and logging",
        P("SERVERHOST", STRING, None, "host the scheduler runs on (maui-py has no server socket)"),
        P("SERVERPORT", Integer(1, 64000), 40559, "port of the client command socket"),
        P("SERVERMODE", SERVER_MODE, "NORMAL", "NORMAL, TEST (decide but do not act) or SIMULATION"),
        P("SERVERNAME", STRING, None, "scheduler name (defaults to SERVERHOST)"),
        P("SERVERHOMEDIR", STRING, None, "scheduler home directory (MAUIHOMEDIR)"),
        P("SERVERCONFIGFILE", STRING, "maui.cfg", "configuration file name", src="src"),
        P("ADMIN1", USERS, ("root",), "users with full control; the first is the primary admin", src="doc",
          active=True, other="src: the user running the scheduler"),
        P("ADMIN2", USERS, (), "users who may change jobs and see everything", active=True),
        P("ADMIN3", USERS, (), "users who may see everything"),
        P("ADMIN4", USERS, (), "users with limited information access", src="src"),
        P("ADMINS", USERS, (), "undocumented admin list", src="src"),
        P("ADMINHOSTS", HOSTS, (), "hosts admin commands may come from", src="src"),
        P("LOGFILE", STRING, "maui.log", "log file (relative to LOGDIR)", active=True),
        P("LOGDIR", STRING, "log", "log directory (relative to the home directory)", active=True),
        P("LOGLEVEL", Integer(0, 9), 0, "log verbosity, 0-9", active=True),
        P("LOGFACILITY", LOG_FACILITY, ("fALL",), "which kinds of events are logged"),
        P("LOGFILEMAXSIZE", COUNT, 10000000, "log size in bytes before it is rolled", src="doc",
          other="src: 1000000"),
        P("LOGFILEROLLDEPTH", COUNT, 2, "rolled log files kept", src="doc", other="src: 1"),
        P("USESYSLOG", BOOL, False, "also log to syslog (mauid: /dev/log, facility daemon)", active=True),
        P("CHECKPOINTFILE", STRING, "maui.ck", "checkpoint file"),
        P("CHECKPOINTINTERVAL", TIME, 300, "time between checkpoints"),
        P("CHECKPOINTEXPIRATIONTIME", TIME, 300000, "age at which checkpoint data is discarded", src="src",
          other="doc: INFINITY"),
        P("STATDIR", STRING, "stats", "statistics directory (fair-share FS.<time> files)"),
        P("TOOLSDIR", STRING, "tools", "directory of helper programs"),
        P("LOCKFILE", STRING, "maui.pid", "lock file", src="src"),
        P("CLIENTTIMEOUT", TIME, 30, "how long client commands wait for the server"),
        OBJ("CLIENTCFG", CLIENT_ATTRS, "per-peer client keys (belongs in maui-private.cfg)"),
        P("MCSOCKETPROTOCOL", STRING, None, "undocumented", src="src"),
        P("APIFAILURETHRESHHOLD", COUNT, 6, "resource manager API failures tolerated", src="src"),
        P("MAXSLEEPITERATION", COUNT, 1, "undocumented", src="src"),
        P("STEPCOUNT", COUNT, 60, "iterations run by a single step", src="src"),
        P("DISPLAYFLAGS", EnumList(Choice("NODECENTRIC")), (), "how client commands display information"),
        P("MINADMINSTIME", TIME, 0, "undocumented", src="src"),
        P("NOTIFICATIONPROGRAM", STRING, None, "program handling notifications"),
        P("NOTIFICATIONINTERVAL", TIME, None, "time between repeated notifications", src="src"),
        P("MAILPROGRAM", STRING, None, "program used to send mail", src="src"),
        P("FEEDBACKPROGRAM", STRING, None, "program run when each job completes"),
        P("REMOTESTARTCOMMAND", STRING, "/usr/bin/rsh", "command used for remote starts", src="src"),
        P("DIRECTORYSERVER", STRING, None, "undocumented", src="src"),
        P("EVENTSERVER", STRING, None, "undocumented", src="src"),
        P("DEFAULTQMHOST", STRING, None, "undocumented", src="src"),
        P("DEFAULTACCOUNT", STRING, None, "account of jobs that name none", src="src"),
        P("MACHINECONFIGFILE", STRING, None, "machine configuration file", src="src"),
        P("USEJOBREGEX", BOOL, False, "match job names with regular expressions", src="src"),
        P("TRAPFUNCTION", STRING, None, "functions traced for debugging"),
        P("TRAPJOB", STRING, None, "jobs traced for debugging"),
        P("TRAPNODE", STRING, None, "nodes traced for debugging"),
        P("TRAPRES", STRING, None, "reservations traced for debugging"),
        P("RESOURCECOLLECTIONPOLICY", STRING, None, "resource daemon collection policy", src="src"),
        P("RESOURCEDAEMON", STRING, "resd", "resource daemon command", src="src"),
        P("RESOURCEDATAFILE", STRING, "/tmp/resd.data", "resource daemon data file", src="src"),
        P("RESOURCELOCKFILE", STRING, "/tmp/resd.lock", "resource daemon lock file", src="src"),
        P("RESOURCEPORT", COUNT, 40561, "resource daemon port", src="src"),
        P("RESOURCEREPORTWAIT", COUNT, 15, "resource daemon report wait", src="src"),
        P("RESOURCESAMPLEINTERVAL", COUNT, 300, "resource daemon sample interval", src="src"),
    ),
    *_group(
        "Allocation manager (bank)",
        P("BANKTYPE", Choice("QBANK", "RESD", "FILE", "GOLD", "NONE"), "NONE", "allocation manager type"),
        P("BANKHOST", STRING, None, "allocation manager host"),
        P("BANKPORT", COUNT, 0, "allocation manager port"),
        P("BANKPROTOCOL", STRING, None, "allocation manager protocol"),
        P("BANKTIMEOUT", TIME, None, "allocation manager timeout"),
        P("BANKCHARGEPOLICY", Choice("DEBITALLWC", "DEBITALLCPU", "DEBITALLPE", "DEBITSUCCESSFULWC",
                                   "DEBITSUCCESSFULCPU", "DEBITSUCCESSFULPE", "NONE"), "NONE", "what is charged"),
        P("BANKDEFERONJOBFAILURE", BOOL, False, "defer jobs when charging fails"),
        P("BANKFALLBACKACCOUNT", STRING, None, "account charged when the job's is exhausted"),
        P("BANKFLUSHINTERVAL", TIME, None, "charge flush interval"),
        P("BANKAPPENDMACHINENAME", BOOL, False, "append the machine name to accounts"),
    ),
    *_group(
        "Simulation",
        P("SIMWORKLOADTRACEFILE", STRING, "traces/workload.trace", "job trace of a simulation"),
        P("SIMRESOURCETRACEFILE", STRING, "traces/resource.trace", "node trace of a simulation"),
        P("SIMSTOPITERATION", COUNT, 0, "iteration at which the simulation pauses (0 = never)"),
        P("SIMEXITITERATION", COUNT, 0, "iteration at which the simulation writes its summary and exits"),
        P("SIMAUTOSHUTDOWN", BOOL, True, "end when no job is running or queued"),
        P("SIMINITIALQUEUEDEPTH", COUNT, 16, "jobs queued at the start (and kept queued by CONSTANT* policies)"),
        P("SIMJOBSUBMISSIONPOLICY", Choice("NORMAL", "CONSTANTJOBDEPTH", "CONSTANTPSDEPTH"), "CONSTANTJOBDEPTH",
          "how trace jobs are submitted"),
        P("SIMNODECONFIGURATION", Choice("NORMAL", "UNIFORM", "PARTITIONED"), "NORMAL", "how trace nodes are "
          "filtered"),
        P("SIMNODECOUNT", COUNT, 0, "nodes loaded from the trace (0 = all)"),
        P("SIMFLAGS", SIM_FLAGS, frozenset(), "trace information ignored"),
        P("SIMDEFAULTJOBFLAGS", JOB_FLAGS, frozenset(), "flags forced on every trace job"),
        P("SIMIGNOREJOBFLAGS", JOB_FLAGS, frozenset(), "trace job flags ignored"),
        P("SIMWCSCALINGPERCENT", COUNT, 100, "scaling of trace wallclock limits and run times (percent)",
          src="src"),
        P("SIMWCACCURACY", DOUBLE, None, "forced wallclock accuracy", src="src"),
        P("SIMWCACCURACYCHANGE", DOUBLE, None, "change of wallclock accuracy", src="src"),
        P("SIMRANDOMIZEJOBSIZE", BOOL, False, "randomise job sizes", src="src"),
        P("SIMSCALEJOBRUNTIME", BOOL, False, "scale run times with machine speed", src="src"),
        P("SIMSTARTTIME", STRING, None, "simulated start time", src="src"),
        P("SIMTIMEPOLICY", Choice("REAL", "NONE"), "NONE", "REAL: simulated time follows the wall clock", src="src"),
        P("SIMCHECKPOINTINTERVAL", TIME, None, "simulation checkpoint interval", src="src"),
        P("SIMCOMRATE", DOUBLE, None, "simulated communication rate", src="src"),
        P("SIMCOMTYPE", Choice("ROUNDROBIN", "BROADCAST", "TREE", "MASTERSLAVE"), "ROUNDROBIN",
          "simulated communication pattern", src="src"),
        P("COMINTERFRAMECOST", DOUBLE, None, "simulated inter-frame communication cost", src="src"),
        P("COMINTRAFRAMECOST", DOUBLE, None, "simulated intra-frame communication cost", src="src"),
        P("SIMRMRANDOMDELAY", COUNT, 0, "random delay added to simulated resource manager calls", origin="doc",
          src="doc"),
        P("SIMTIMERATIO", COUNT, 0, "simulated time speed-up over wall time (0 = as fast as possible)",
          origin="doc", src="doc"),
        P("PLOTMINTIME", TIME, 120, "shortest job shown in matrix output"),
        P("PLOTMAXTIME", TIME, 245760, "longest job shown in matrix output", src="src", other="doc: 68:00:00"),
        P("PLOTTIMESCALE", COUNT, 11, "columns of matrix output"),
        P("PLOTMINPROC", COUNT, 1, "smallest job shown in matrix output"),
        P("PLOTMAXPROC", COUNT, 512, "largest job shown in matrix output"),
        P("PLOTPROCSCALE", COUNT, 9, "rows of matrix output"),
    ),
    *_group(
        "Legacy per-index forms",
        LEGACY("QOSPRIORITY", "QOSCFG", "PRIORITY"),
        LEGACY("QOSQTWEIGHT", "QOSCFG", "QTWEIGHT"),
        LEGACY("QOSXFWEIGHT", "QOSCFG", "XFWEIGHT"),
        LEGACY("QOSTARGETQT", "QOSCFG", "QTTARGET"),
        LEGACY("QOSTARGETXF", "QOSCFG", "XFTARGET"),
        LEGACY("QOSFLAGS", "QOSCFG", "QFLAGS"),
        LEGACY("QOSQTTARGET", "QOSCFG", "QTTARGET", origin="doc"),
        LEGACY("QOSXFTARGET", "QOSCFG", "XFTARGET", origin="doc"),
        P("QOSNAME", STRING, None, "legacy display name of QOS <n>", scope=INDEXED),
        LEGACY("SRACCESS", "SRCFG", "ACCESS"),
        LEGACY("SRACCOUNTLIST", "SRCFG", "ACCOUNTLIST"),
        LEGACY("SRCHARGEACCOUNT", "SRCFG", "CHARGEACCOUNT"),
        LEGACY("SRCLASSLIST", "SRCFG", "CLASSLIST"),
        LEGACY("SRDAYS", "SRCFG", "DAYS"),
        LEGACY("SRDEPTH", "SRCFG", "DEPTH"),
        LEGACY("SRENDTIME", "SRCFG", "ENDTIME"),
        LEGACY("SRFEATURES", "SRCFG", "NODEFEATURES"),
        LEGACY("SRFLAGS", "SRCFG", "FLAGS"),
        LEGACY("SRGROUPLIST", "SRCFG", "GROUPLIST"),
        LEGACY("SRHOSTLIST", "SRCFG", "HOSTLIST"),
        LEGACY("SRIDLETIME", "SRCFG", "IDLETIME"),
        LEGACY("SRMAXTIME", "SRCFG", "MAXTIME"),
        LEGACY("SRNAME", "SRCFG", "NAME"),
        LEGACY("SRPARTITION", "SRCFG", "PARTITION"),
        LEGACY("SRPERIOD", "SRCFG", "PERIOD"),
        LEGACY("SRPRIORITY", "SRCFG", "PRIORITY"),
        LEGACY("SRQOSLIST", "SRCFG", "QOSLIST"),
        LEGACY("SRRESOURCES", "SRCFG", "RESOURCES"),
        LEGACY("SRSTARTTIME", "SRCFG", "STARTTIME"),
        LEGACY("SRTASKCOUNT", "SRCFG", "TASKCOUNT"),
        LEGACY("SRTPN", "SRCFG", "TPN"),
        LEGACY("SRUSERLIST", "SRCFG", "USERLIST"),
        LEGACY("SRWENDTIME", "SRCFG", "WENDTIME"),
        LEGACY("SRWSTARTTIME", "SRCFG", "WSTARTTIME"),
        P("SRMAXTASKS", COUNT, None, "legacy standing reservation task maximum", scope=INDEXED),
        P("SRMINTASKS", COUNT, None, "legacy standing reservation task minimum", scope=INDEXED),
        P("SRMINLOAD", DOUBLE, None, "legacy standing reservation minimum load", scope=INDEXED),
        P("SRTIMELOGIC", Choice("AND", "OR"), "OR", "legacy: how SRMAXTIME combines with the other ACLs",
          scope=INDEXED),
    ),
]

# maui-py's own parameters live in their own modules, one per subsystem, appended here so
# that each subsystem's rows stay beside the code that reads them.
TABLE += params_queues.ROWS + params_runtime.ROWS + params_predict.ROWS

ALIASES: dict[str, Alias] = {alias.name: alias for alias in (
    Alias("SERVICEWCAP", "SERVICECAP", "the 3.3.1 spelling (sic) of SERVICECAP"),
    Alias("UFSWEIGHT", "FSUSERWEIGHT", "Maui 3.0 name of FSUSERWEIGHT"),
    Alias("GFSWEIGHT", "FSGROUPWEIGHT", "Maui 3.0 name of FSGROUPWEIGHT"),
    Alias("AFSWEIGHT", "FSACCOUNTWEIGHT", "Maui 3.0 name of FSACCOUNTWEIGHT"),
    Alias("QFSWEIGHT", "FSQOSWEIGHT", "a 3.3.1 #define only, not parsed there", warn=True),
    Alias("CFSWEIGHT", "FSCLASSWEIGHT", "a 3.3.1 #define only, not parsed there", warn=True),
    Alias("TARGWEIGHT", "TARGETWEIGHT", "the docs' spelling; Maui 3.3.1 does not know it", warn=True),
    Alias("MEMORYWEIGHT", "MEMWEIGHT", "the docs' example spelling; Maui 3.3.1 does not know it", warn=True),
    Alias("SYSTEMMAXJOBPROC", "SYSTEMMAXPROCPERJOB", "the docs' example spelling; Maui 3.3.1 does not know it",
          warn=True),
    Alias("SYSTEMMAXJOBPROCSECOND", "SYSTEMMAXPROCSECONDPERJOB",
          "the docs' example spelling; Maui 3.3.1 does not know it", warn=True),
    Alias("JOBSYNCDEADLINE", "JOBSYNCTIME", "Maui 3.0.5 name; Maui 3.3.1 does not know it", warn=True),
    Alias("NODESYNCDEADLINE", "NODESYNCTIME", "Maui 3.0.5 name; Maui 3.3.1 does not know it", warn=True),
    Alias("DOWNNODEDELAYTIME", "NODEDOWNSTATEDELAYTIME", "documented name; Maui 3.3.1 does not know it",
          warn=True),
    Alias("RMSERVER", "RMHOST", "Maui 3.0.5 name of RMHOST"),
    Alias("BANKSERVER", "BANKHOST", "old name of BANKHOST"),
    Alias("SIMCPUSCALINGPERCENT", "SIMWCSCALINGPERCENT", "documented name; 3.3.1 has SIMWCSCALINGPERCENT",
          warn=True),
)}

_ENGINE, _LIMITS, _DEFERRAL = "maui_py.priority.engine", "maui_py.policy.limits", "maui_py.policy.deferral"
ACTS_IN: dict[str, str] = {
    **{row.name: _ENGINE for row in TABLE if row.group == "Priority weights and caps"},
    "RESERVATIONDEPTH": "maui_py.policy.reservation", "RESERVATIONQOSLIST": "maui_py.policy.reservation",
    "RESERVATIONPOLICY": "maui_py.policy.kept", "RESERVATIONRETRYTIME": _DEFERRAL,
    "BACKFILLPOLICY": "maui_py.policy.backfill", "BACKFILLDEPTH": "maui_py.policy.backfill",
    "BACKFILLMETRIC": "maui_py.policy.backfill", "BACKFILLMAXSCHEDULES": "maui_py.policy.backfill",
    "XFMINWCLIMIT": _ENGINE, "JOBPRIOACCRUALPOLICY": _DEFERRAL, "REJECTNEGPRIOJOBS": _ENGINE,
    "ENABLENEGJOBPRIORITY": _ENGINE,
    "FSPOLICY": "maui_py.priority.fairshare", "FSINTERVAL": "maui_py.priority.fairshare",
    "FSDEPTH": "maui_py.priority.fairshare", "FSDECAY": "maui_py.priority.fairshare",
    "USERCFG": _LIMITS, "GROUPCFG": _LIMITS, "ACCOUNTCFG": _LIMITS, "CLASSCFG": _LIMITS, "QOSCFG": _LIMITS,
    "NODECFG": "maui_py.policy.nodecfg", "SRCFG": "maui_py.policy.standing",
    "SYSTEMMAXPROCPERJOB": _LIMITS, "SYSTEMMAXJOBWALLTIME": _LIMITS,
    "DEFERTIME": _DEFERRAL, "DEFERCOUNT": _DEFERRAL, "DEFERSTARTCOUNT": _DEFERRAL,
    "JOBMAXOVERRUN": "maui_py.planning.sync", "NODEALLOCATIONPOLICY": "maui_py.planning.nodechoice",
    "MAUICOMPAT": "maui_py.core.compat",
    "RMCFG": "maui_py.rm.registry", "RMPOLLINTERVAL": "maui_py.daemon.loop",
    "ADMIN1": "maui_py.daemon.handlers", "ADMIN2": "maui_py.cli.common",
    "LOGFILE": "maui_py.daemon.paths", "LOGDIR": "maui_py.daemon.paths", "LOGLEVEL": "maui_py.daemon.loop",
    "USESYSLOG": "maui_py.daemon.loop",
    "QUEUEPOLICY": "maui_py.priority.queues", "QUEUECREDENTIAL": "maui_py.priority.policy",
    "QUEUECFG": "maui_py.priority.policy",
    **{name: "maui_py.priority.armada" for name in (
        "ARMADAPRIORITYHALFLIFE", "ARMADALEASEBATCHSIZE", "ARMADAPROBABILISTICALL", "ARMADASEED",
        "ARMADAMAXFRACTIONPERQUEUE", "ARMADAMAXFRACTIONTOSCHEDULE")},
    "STOREFILE": "maui_py.daemon.paths", "JOURNALKEEPTIME": "maui_py.daemon.loop",
    "REQUESTPOLLINTERVAL": "maui_py.daemon.loop", "METRICSPORT": "maui_py.daemon.loop",
    "METRICSADDRESS": "maui_py.daemon.loop", "METRICSFILE": "maui_py.daemon.loop",
    "BFPRIORITYPOLICY": "maui_py.policy.backfill", "TIMEZONE": "maui_py.policy.standing",
    **dict.fromkeys(("PREDICTIONPOLICY", "PREDICTIONHISTORY", "PREDICTIONCORRECTION"),
                    "maui_py.policy.prediction"),
}
"""Active parameter -> the module that acts on it (shown in docs/config-reference.md; a test
checks that the module's source names the parameter). A new active row needs an entry."""

_CRED_ACTS = {"PRIORITY": _ENGINE, "FSTARGET": "maui_py.priority.fairshare", "XFWEIGHT": _ENGINE,
              "QTWEIGHT": _ENGINE, "QFLAGS": "maui_py.core.context", "MAX.WCLIMIT": _LIMITS,
              "DEFAULT.WCLIMIT": "maui_py.adapters.slurm.adapter", "PREDICTION": "maui_py.policy.prediction"}
ATTR_ACTS_IN: dict[str, dict[str, str]] = {
    **{kind: _CRED_ACTS for kind in ("USERCFG", "GROUPCFG", "ACCOUNTCFG", "CLASSCFG", "QOSCFG")},
    "NODECFG": dict.fromkeys(("FEATURES", "PARTITION", "PRIORITY", "SPEED"), "maui_py.policy.nodecfg"),
    "SRCFG": {},
    "RMCFG": {"TYPE": "maui_py.rm.registry", "HOST": "maui_py.adapters.torque.adapter",
              "PORT": "maui_py.adapters.torque.adapter", "CONFIGFILE": "maui_py.adapters.slurm.adapter",
              "TIMEOUT": "maui_py.daemon.rmcall",
              **dict.fromkeys(("HOLDALL", "VERIFYTIMEOUT", "MIRRORRESERVATIONS", "READRESERVATIONS"),
                              "maui_py.adapters.slurm.adapter")},
    "QUEUECFG": {"PRIORITYFACTOR": "maui_py.priority.armada", "MAXFRACTION": "maui_py.priority.armada",
                 **dict.fromkeys(("QPMIN", "QPMAX", "QPI", "QPD", "QPG", "SPG", "SPMAX"), "maui_py.priority.fbsng")},
}
"""Active attribute of a *CFG parameter -> the module that acts on it; throttling limits
(MAX*, OMAX*) act in maui_py.policy.limits, SRCFG attributes in maui_py.policy.standing."""


def _acts_in(row: Param) -> Param:
    """`row` with the module that acts on it, and on each of its active attributes."""
    if row.status != ACTIVE or row.maps_to:
        return row
    where = ATTR_ACTS_IN.get(row.name, {})
    default = _LIMITS if row.name in ("USERCFG", "GROUPCFG", "ACCOUNTCFG", "CLASSCFG", "QOSCFG") else row.acts_in
    default = "maui_py.policy.standing" if row.name == "SRCFG" else default
    attrs = {name: replace(a, acts_in=a.acts_in or where.get(name, default if name.startswith(("MAX", "OMAX"))
                                                               or row.name == "SRCFG" else ""))
             if a.status == ACTIVE else a for name, a in row.attrs.items()}
    return replace(row, acts_in=row.acts_in or ACTS_IN.get(row.name, ""), attrs=attrs)


TABLE[:] = [_acts_in(row) for row in TABLE]

PARAMS: Mapping[str, Param] = {row.name: row for row in TABLE}
"""Every canonical parameter, in table order."""


def lookup(name: str) -> tuple[Param, Alias | None] | None:
    """The row for a name as written (any case, canonical or alias); None when unknown."""
    upper = name.upper()
    if upper in PARAMS:
        return PARAMS[upper], None
    alias = ALIASES.get(upper)
    return (PARAMS[alias.target], alias) if alias else None


def lookup_attr(param: Param, name: str) -> Attr | None:
    """An attribute of a `*CFG` parameter by name (any case, attribute aliases resolved)."""
    upper = name.upper()
    return param.attrs.get(param.attr_aliases.get(upper, upper))


def suggest(name: str) -> str | None:
    """A "did you mean" for an unknown parameter: the nearest parameter or *CFG attribute.

    `MAXNODES` is closer to the attribute MAXNODE than to any parameter, so the hint says where
    that attribute lives: `USERCFG[<NAME>] MAXNODE=`.
    """
    candidates = {n: n for n in list(PARAMS) + list(ALIASES)}
    for param in PARAMS.values():
        if param.scope == OBJECT and param.status == ACTIVE:
            for attr in param.attrs:
                candidates.setdefault(attr, f"{param.name}[<NAME>] {attr}=")
    hint = nearest(name, candidates)
    return candidates[hint] if hint else None


def _check_table() -> None:
    """Import-time consistency: unique names, known scopes, aliases that resolve."""
    assert len(PARAMS) == len(TABLE), "duplicate parameter names in TABLE"
    for row in TABLE:
        assert row.scope in SCOPES and row.status in (ACTIVE, ACCEPTED), row.name
        assert row.default_source in ("src", "doc", "same", "maui-py"), row.name
        assert (row.scope == OBJECT) == (row.type is None), row.name
    for alias in ALIASES.values():
        assert alias.target in PARAMS and alias.name not in PARAMS, alias.name


_check_table()
