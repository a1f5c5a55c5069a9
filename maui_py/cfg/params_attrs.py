"""The attribute tables of the `*CFG` parameters (SRCFG, RMCFG, NODECFG, the credentials' limits)
and LEGACY, the per-attribute forms stored as an attribute of an object. params.py re-exports them."""

from __future__ import annotations

from dataclasses import replace

from .choices import PredictionPolicy
from .params_kinds import (
    JOB_FLAGS, NODE_ACCESS, QOS_FLAGS, RES_FLAGS, RM_AUTH, RM_TYPE, SERVER_MODE, SR_ACCESS, SR_PERIOD,
)
from .rows import (
    ACCEPTED, ACTIVE, BOOL, COUNT, DOUBLE, FSTARGET, HOSTS, INDEXED, INT, LIMIT, NAME, NAMES, QLIST, STRING,
    TIME, TIME_LIMIT, WEIGHT, Attr, Param, A,
)
from .values import AclTime, Choice, Days, ResourceSpec, PeriodOffset, StringList


def _limits(override: bool) -> list[Attr]:
    """The throttling limits of MCredAttr: MAX*, idle MAXI*, and (QOS) override OMAX* forms."""
    rows = []
    for key, what, vtype, active in (
            ("JOB", "jobs", LIMIT, True), ("NODE", "nodes", LIMIT, True), ("PE", "processor-equivalents", LIMIT, False),
            ("PROC", "processors", LIMIT, True), ("PS", "outstanding proc-seconds", LIMIT, True),
            ("WC", "outstanding wallclock", TIME_LIMIT, True), ("MEM", "memory (MB)", LIMIT, True)):
        rows.append(A(f"MAX{key}", vtype, f"limit on active {what}", active=active, multidim=True))
    for key, what, vtype, active in (
            ("JOB", "jobs", LIMIT, True), ("NODE", "nodes", LIMIT, True), ("PE", "processor-equivalents", LIMIT, False),
            ("PROC", "processors", LIMIT, True), ("PS", "proc-seconds", LIMIT, True),
            ("WC", "wallclock", TIME_LIMIT, False), ("MEM", "memory (MB)", LIMIT, False)):
        rows.append(A(f"MAXI{key}", vtype, f"limit on idle (eligible) {what}", active=active, multidim=True))
    for prefix, scope in (("OMAX", "active"), ("OMAXI", "idle"), ("OMAXJ", "per-job")):
        for key, what, vtype in (("JOB", "jobs", LIMIT), ("NODE", "nodes", LIMIT), ("PE", "PEs", LIMIT),
                                 ("PROC", "processors", LIMIT), ("PS", "proc-seconds", LIMIT),
                                 ("WC", "wallclock", TIME_LIMIT), ("MEM", "memory", LIMIT)):
            if prefix == "OMAXJ" and key == "JOB":
                continue
            rows.append(A(f"{prefix}{key}", vtype, f"override limit on {scope} {what} (supersedes other credentials)",
                           active=override and prefix != "OMAXJ" and key != "PE"))
    return rows


def cred_attrs(kind: str) -> dict[str, Attr]:
    """MCredAttr (shared by USER/GROUP/ACCOUNT/CLASS/QOS/SYS) plus the kind-specific attributes."""
    rows = [
        A("PRIORITY", INT, "credential priority (CRED priority component)", 0, active=True),
        *_limits(override=kind == "QOS"),
        A("MINPROC", COUNT, "minimum processors a job must request"),
        A("FSTARGET", FSTARGET, "fair-share target in percent; suffix + floor, - ceiling, ^ absolute cap, % relative cap",
           active=True),
        A("QLIST", QLIST, "QOSes jobs of this credential may use (the ones checkjob --advice may name; "
                          "the resource manager enforces it)"),
        A("QDEF", NAME, "default QOS of jobs of this credential (checkjob --advice may name it)"),
        A("PLIST", NAMES, "partitions jobs of this credential may use (the classes checkjob --advice may "
                          "name; the resource manager enforces it)"),
        A("PDEF", NAME, "default partition (checkjob --advice may name it)"),
        A("ALIST", NAMES, "accounts this credential may use"),
        A("ADEF", NAME, "default account"),
        A("JOBFLAGS", JOB_FLAGS, "flags set on every job of this credential (the docs call it FLAGS)"),
        A("MAXJOBPERUSER", LIMIT, "per-user active job limit within this credential"),
        A("MAXNODEPERUSER", LIMIT, "per-user node limit within this credential"),
        A("MAXPROCPERUSER", LIMIT, "per-user processor limit within this credential"),
        A("MAXPROCPERNODEPERQUEUE", LIMIT, "processors per node per queue"),
        A("OVERRUN", TIME, "wallclock overrun allowed to jobs of this credential"),
        A("ID", STRING, "external identifier"),
        A("DEFAULT.WCLIMIT", TIME, "wallclock limit given to jobs that request none"
           + (" (Slurm: pushed with the start as the job's TimeLimit)" if kind == "CLASS" else ""),
           active=kind == "CLASS"),
        A("MAX.WCLIMIT", TIME, "largest wallclock limit a job may request"
           + (" (a job over it gets a batch hold and is never started)" if kind == "CLASS" else ""),
           active=kind == "CLASS"),
        A("MAXPROCPERNODE", COUNT, "processors per node a job may use"),
        A("MAXNODEPERJOB", COUNT, "nodes a single job may request"),
        A("MAXPROCPERJOB", COUNT, "processors a single job may request"),
    ]
    if kind == "GROUP":
        rows.append(A("CLASSWEIGHT", WEIGHT, "CLASSWEIGHT used for this group's jobs instead of the global one"))
    if kind == "CLASS":
        rows += [
            A("OCNODE", STRING, "overcommit node"),
            A("DEFAULT.FEATURES", NAMES, "node features added to jobs of this class"),
            A("HOSTLIST", HOSTS, "hosts this class may run on"),
            A("NAME", STRING, "display name"),
            A("NODEACCESSPOLICY", NODE_ACCESS, "node sharing policy for jobs of this class"),
            A("OCDPROCFACTOR", DOUBLE, "overcommit dedicated-processor factor"),
            A("STATE", STRING, "class state"),
            A("WCOVERRUN", TIME, "wallclock overrun allowed to jobs of this class"),
        ]
    if kind == "QOS":
        rows += [
            A("XFWEIGHT", WEIGHT, "added to XFACTORWEIGHT for jobs of this QOS", active=True),
            A("QTWEIGHT", WEIGHT, "added to QUEUETIMEWEIGHT for jobs of this QOS", active=True),
            A("XFTARGET", DOUBLE, "target expansion factor (TARG priority component)"),
            A("QTTARGET", TIME, "target queue time (TARG priority component); 3.3.1 reads plain seconds"),
            A("QFLAGS", QOS_FLAGS, "QOS flags: NOBF, NORESERVATION and RESERVEALWAYS act; the others "
               "(PREEMPTOR, IGN* ...) are read and noted",
               active=True),
            A("PREDICTION", Choice.of(PredictionPolicy), "PREDICTIONPOLICY for jobs of this QOS (maui-py)",
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
    A("ACCESS", SR_ACCESS, "SHARED lets the reservation use resources held by other non-job reservations",
       "DEDICATED"),
    A("ACCOUNTLIST", _ACL, "accounts whose jobs may use the reserved resources"),
    A("CHARGEACCOUNT", STRING, "account charged for idle reserved cycles"),
    A("CLASSLIST", _ACL, "classes whose jobs may use the reserved resources"),
    A("DAYS", Days(), "days of the week the reservation is active", ("ALL",)),
    A("DEPTH", COUNT, "number of periods created ahead", 2),
    A("ENDTIME", PeriodOffset(), "end within the period ([[[DD:]HH:]MM:]SS)", 86400, src="doc", other="src: 0"),
    A("FLAGS", RES_FLAGS, "reservation flags (SINGLEUSE, BYNAME, PREEMPTEE, TIMEFLEX, FORCE, OWNERPREEMPT ...): "
       "read and noted, none acted on"),
    A("GROUPLIST", _ACL, "groups whose jobs may use the reserved resources"),
    A("HOSTLIST", HOSTS, "hosts to reserve: node names, Slurm hostlists (node[01-04,7]) or, when "
       "clearly one (^..., $, *, |, ...), Maui regular expressions searched in the node names", ("ALL",)),
    A("IDLETIME", TIME, "idle time before the reservation is released"),
    A("JOBATTRLIST", _ACL, "job attributes granting access"),
    A("MAXTIME", AclTime(), "longest job overlap allowed (legacy SRMAXTIME)"),
    A("NAME", STRING, "reservation name"),
    A("NODEFEATURES", _ACL, "node features required of reserved nodes"),
    A("OWNER", STRING, "owner as <CREDTYPE>:<CREDID>"),
    A("PARTITION", STRING, "partition to reserve in", "ALL"),
    A("PERIOD", SR_PERIOD, "period of the reservation", "DAY"),
    A("PRIORITY", INT, "reservation priority", 0),
    A("PROCLIMIT", LIMIT, "processor limit of jobs allowed in"),
    A("QOSLIST", _ACL, "QOSes whose jobs may use the reserved resources"),
    A("RESOURCES", ResourceSpec(), "resources of one reserved task (PROCS:-1 = every processor of the node)",
       (("PROCS", -1),)),
    A("STARTTIME", PeriodOffset(), "start within the period ([[[DD:]HH:]MM:]SS)", 0),
    A("STIDLETIME", TIME, "statistics: idle time"),
    A("STTOTALTIME", TIME, "statistics: total time"),
    A("TASKCOUNT", COUNT, "tasks to reserve (0 = all matching resources)", 0),
    A("TASKLIMIT", COUNT, "task limit of jobs allowed in"),
    A("TIMELIMIT", AclTime(), "longest overlap of a job with the reservation (-1 = no time-based access)", -1),
    A("TPN", COUNT, "minimum tasks per node", 0),
    A("USERLIST", _ACL, "users whose jobs may use the reserved resources"),
    A("WENDTIME", TIME, "end as an offset in the week (PERIOD WEEK)"),
    A("WSTARTTIME", TIME, "start as an offset in the week (PERIOD WEEK)"),
)), A("TRIGGER", STRING, "Moab 4 trigger; not in Maui 3.3.1"))

RM_ATTRS = _attrs(
    A("TYPE", RM_TYPE, "resource manager type (maui-py: SLURM or PBS for TORQUE)", active=True),
    A("HOST", STRING, "host of the resource manager server", active=True),
    A("PORT", COUNT, "port of the resource manager server (0 = the type's default)", active=True),
    A("AUTHTYPE", RM_AUTH, "authentication between scheduler and resource manager"),
    A("ASYNCJOBSTART", BOOL, "start jobs without waiting for the resource manager's answer"),
    A("CONFIGFILE", STRING, "resource manager configuration file", active=True),
    A("CSALGO", STRING, "checksum algorithm"),
    A("CSKEY", STRING, "checksum key"),
    A("EPORT", COUNT, "event port"),
    A("LOCALDISKFS", STRING, "file system reported as local disk"),
    A("MINETIME", TIME, "minimum time between resource manager events"),
    A("NAME", STRING, "resource manager name"),
    A("NMPORT", COUNT, "node manager port"),
    A("NMSERVER", STRING, "node manager server"),
    A("SOCKETPROTOCOL", STRING, "socket protocol"),
    A("SUSPENDSIG", STRING, "signal used to suspend jobs"),
    A("TIMEOUT", TIME, "seconds to wait for the resource manager", 15, src="doc", active=True,
       other="doc text: 30 seconds"),
    A("VERSION", STRING, "resource manager version"),
    A("WIREPROTOCOL", STRING, "wire protocol"),
    A("HOLDALL", BOOL, "Slurm: every job enters held by maui-py's job_submit.lua (the gate), so a release "
       "starts it; FALSE: only holds maui-py set are released", True, active=True, src="maui-py"),
    A("VERIFYTIMEOUT", TIME, "Slurm: how long apply() waits after a release for the jobs to leave PENDING "
       "(0: does not wait)", 0, active=True, src="maui-py"),
    A("MIRRORRESERVATIONS", BOOL, "Slurm: mirror each priority reservation as a Slurm reservation "
       "maui.<job>", False, active=True, src="maui-py"),
    A("READRESERVATIONS", BOOL, "Slurm: put Slurm's own reservations into the snapshot", True, active=True,
       src="maui-py"),
)

NODE_ATTRS = _attrs(
    A("ACCESS", NODE_ACCESS, "node access policy for this node"),
    A("ARCH", STRING, "architecture"),
    A("AVLCLASS", STRING, "available classes"),
    A("AVLMEMWEIGHT", DOUBLE, "node priority weight of available memory"),
    A("AVLPROCWEIGHT", DOUBLE, "node priority weight of available processors"),
    A("CFGCLASS", STRING, "configured classes"),
    A("CFGDISK", COUNT, "configured disk (MB)"),
    A("CFGMEM", COUNT, "configured memory (MB)"),
    A("CFGMEMWEIGHT", DOUBLE, "node priority weight of configured memory"),
    A("CFGPROCWEIGHT", DOUBLE, "node priority weight of configured processors"),
    A("CFGSWAP", COUNT, "configured swap (MB)"),
    A("EXTLOAD", DOUBLE, "external load"),
    A("FEATURES", NAMES, "node features, added to those the resource manager reports", active=True),
    A("FRAME", COUNT, "frame number"),
    A("GRES", STRING, "generic resources"),
    A("LOAD", DOUBLE, "load"),
    A("LOADWEIGHT", DOUBLE, "node priority weight of load"),
    A("MAXJOB", COUNT, "jobs allowed on the node at once"),
    A("MAXJOBPERUSER", COUNT, "jobs per user allowed on the node"),
    A("MAXLOAD", DOUBLE, "load at which the node is marked busy"),
    A("MAXPEPERJOB", DOUBLE, "processor-equivalents one job may use on the node"),
    A("MAXPROC", COUNT, "processors usable on the node"),
    A("MAXPROCPERCLASS", COUNT, "processors per class on the node"),
    A("MAXPROCPERUSER", COUNT, "processors per user on the node"),
    A("NETWORK", STRING, "network"),
    A("NODEID", STRING, "node id"),
    A("NODESTATE", STRING, "node state"),
    A("NODETYPE", STRING, "node type (for allocation managers)"),
    A("OS", STRING, "operating system"),
    A("PARTITION", STRING, "partition (class) the node serves", active=True),
    A("PRIORITY", DOUBLE, "node priority (NODEALLOCATIONPOLICY PRIORITY)", active=True),
    A("PRIORITYF", STRING, "node priority function, e.g. 'SPEED + .01 * AMEM - 10 * JOBCOUNT'"),
    A("PRIOWEIGHT", DOUBLE, "weight of PRIORITY in the node priority function"),
    A("PROCSPEED", COUNT, "processor speed"),
    A("RADISK", COUNT, "available disk reported"),
    A("RAMEM", COUNT, "available memory reported"),
    A("RAPROC", COUNT, "available processors reported"),
    A("RASWAP", COUNT, "available swap reported"),
    A("RCDISK", COUNT, "configured disk reported"),
    A("RCMEM", COUNT, "configured memory reported"),
    A("RCPROC", COUNT, "configured processors reported"),
    A("RCSWAP", COUNT, "configured swap reported"),
    A("RESOURCES", ResourceSpec(), "generic resources of the node"),
    A("SIZE", COUNT, "node size"),
    A("SLOT", COUNT, "slot number in its frame"),
    A("SPEED", DOUBLE, "relative machine speed", active=True),
    A("SPEEDWEIGHT", DOUBLE, "node priority weight of speed"),
    A("STATACTIVETIME", COUNT, "statistics: active time"),
    A("STATTOTALTIME", COUNT, "statistics: total time"),
    A("STATUPTIME", COUNT, "statistics: up time"),
    A("TASKCOUNT", COUNT, "task count"),
    A("USAGEWEIGHT", DOUBLE, "node priority weight of usage"),
)

SCHED_ATTRS = _attrs(
    A("CPVERSION", STRING, "checkpoint file version"),
    A("FBSERVER", STRING, "fallback server"),
    A("HOMEDIR", STRING, "scheduler home directory"),
    A("MODE", SERVER_MODE, "server mode", "NORMAL"),
    A("NAME", STRING, "scheduler name"),
    A("SERVER", STRING, "<HOST>:<PORT> of the scheduler"),
)

CLIENT_ATTRS = _attrs(
    A("CSALGO", STRING, "checksum algorithm"),
    A("CSKEY", STRING, "shared secret key (belongs in maui-private.cfg)"),
    A("TIMEOUT", TIME, "client timeout"),
    A("FLAGS", STRING, "client flags"),
)

AM_ATTRS = _attrs(*(A(name, vtype, doc) for name, vtype, doc in (
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


def LEGACY(name: str, target: str, attr: str, doc: str = "", *, origin: str = "src") -> Param:
    """A deprecated per-attribute form, stored as attribute `attr` of object `target`."""
    row = OBJECT_ATTRS[target][attr]
    return Param(name, row.type, row.default, INDEXED, doc or f"legacy form of {target}[<NAME>] {attr}=",
                 row.default_source, row.status, origin, maps_to=(target, attr))


OBJECT_ATTRS = {"SRCFG": SR_ATTRS, "RMCFG": RM_ATTRS, "QOSCFG": cred_attrs("QOS")}
