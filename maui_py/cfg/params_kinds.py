"""Value kinds of the parameter table shared by many rows: the policy choices with Maui's other
spellings (aliases), and the flag lists. params.py re-exports them."""

from __future__ import annotations

from .choices import BackfillMetric, BackfillPolicy, FairSharePolicy, NodeAllocation, ReservationPolicy
from .values import Choice, EnumList, Flags, FsPolicy, RmType


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
