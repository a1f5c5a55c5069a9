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

The rows are written by parameter family in params_sched.py (Maui's scheduling parameters),
params_site.py (Maui's site parameters), params_queues.py, params_runtime.py, params_predict.py and
params_forecast.py
(maui-py's own); this module concatenates them into the one TABLE, says where each active row acts
(ACTS_IN) and answers lookups. The row types and builders are in rows.py, the shared value kinds in
params_kinds.py, the *CFG attribute tables in params_attrs.py, policy values in choices.py.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from . import params_forecast, params_predict, params_queues, params_runtime, params_sched, params_site
from .params_kinds import (  # read from here by tests and cli/
    BACKFILL_METRIC, BACKFILL_POLICY, FS_POLICY, QOS_FLAGS, RM_TYPE,
)
from .rows import (  # the scopes, statuses and row types are also read from here (loader.py, cli/)
    ACCEPTED, ACTIVE, COMPONENT_WEIGHT, GLOBAL, HOSTS, INDEXED, LIMIT, OBJECT, PARTITION, SCOPES, STACK, TIME_LIMIT,
    Attr, Param,
)
from .values import nearest

__all__ = [
    "ACCEPTED", "ACTIVE", "ALIASES", "ACTS_IN", "ATTR_ACTS_IN", "Alias", "Attr", "BACKFILL_METRIC", "BACKFILL_POLICY",
    "COMPONENT_WEIGHT", "FS_POLICY", "GLOBAL", "HOSTS", "INDEXED", "LIMIT", "OBJECT", "PARAMS", "PARTITION", "Param",
    "QOS_FLAGS", "RM_TYPE", "STACK", "TABLE", "TIME_LIMIT", "lookup", "lookup_attr", "suggest",
]


@dataclass(frozen=True)
class Alias:
    """Another spelling of a canonical parameter; `warn` when Maui 3.3.1 did not know it."""

    name: str
    target: str
    note: str
    warn: bool = False


TABLE: list[Param] = params_sched.ROWS + params_site.ROWS
# maui-py's own parameters live in their own modules, one per subsystem, appended here so
# that each subsystem's rows stay beside the code that reads them.
TABLE += params_queues.ROWS + params_runtime.ROWS + params_predict.ROWS + params_forecast.ROWS

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
    # the cycle's settings (core/context.py) read these; planning/ is handed the values
    "JOBMAXOVERRUN": "maui_py.core.context", "NODEALLOCATIONPOLICY": "maui_py.core.context",
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
    **dict.fromkeys(("FORECASTPOLICY", "FORECASTINTERVAL", "FORECASTBUDGET", "FORECASTSAMPLES", "FORECASTARRIVALS"),
                    "maui_py.daemon.forecasting"),
    "FORECASTCALIBRATION": "maui_py.cli.forecast_worker", "FORECASTWORKERS": "maui_py.cli.forecast_worker",
}
"""Active parameter -> the module that reads it (shown in docs/config-reference.md;
tests/unit/test_cfg_acts_in.py checks by ast that the module reads the parameter: looks up its
name, or reads the Settings field or config attribute made from it). A new active row needs an
entry."""

_CRED_ACTS = {"PRIORITY": _ENGINE, "FSTARGET": "maui_py.priority.fairshare", "XFWEIGHT": _ENGINE,
              "QTWEIGHT": _ENGINE, "QFLAGS": "maui_py.core.context", "MAX.WCLIMIT": _LIMITS,
              "DEFAULT.WCLIMIT": "maui_py.adapters.slurm.adapter", "PREDICTION": "maui_py.policy.prediction"}
ATTR_ACTS_IN: dict[str, dict[str, str]] = {
    **{kind: _CRED_ACTS for kind in ("USERCFG", "GROUPCFG", "ACCOUNTCFG", "CLASSCFG", "QOSCFG")},
    "NODECFG": dict.fromkeys(("FEATURES", "PARTITION", "PRIORITY", "SPEED"), "maui_py.policy.nodecfg"),
    "SRCFG": {},
    "RMCFG": {"TYPE": "maui_py.rm.registry", "HOST": "maui_py.adapters.torque.adapter",
              "PORT": "maui_py.adapters.torque.adapter", "CONFIGFILE": "maui_py.adapters.slurm.adapter",
              "TIMEOUT": "maui_py.daemon.loop",
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
