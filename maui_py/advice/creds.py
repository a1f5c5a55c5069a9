"""The QOSes and classes a job's own credentials allow it, as Maui reads them: a QOS in
the QLIST (or the QDEF) of the job's user, group, account or class (*CFG[name], else the
*CFG[DEFAULT] entry), MQOSGetAccess's OR over the credentials; a class in their PLIST that
some node serves. The resource manager, which checks who may submit where, has the last
word; advice names nothing no credential lists (no QLIST or PLIST: no such advice).
"""

from __future__ import annotations

from ..cfg import SchedulerConfig
from ..model import Job

CREDS = (("USERCFG", "user"), ("GROUPCFG", "group"), ("ACCOUNTCFG", "account"), ("CLASSCFG", "class_"))


def _listed(cfg: SchedulerConfig, job: Job, attrs: tuple[str, ...]) -> set[str]:
    out: set[str] = set()
    for param, field in CREDS:
        name = getattr(job, field)
        obj = cfg.object(param, name) if name else None
        for entry in (obj, cfg.object(param, "DEFAULT")):
            if entry is None:
                continue
            for attr in attrs:
                v = entry.get(attr)
                if isinstance(v, str):
                    out.add(v)
                elif v:
                    out.update(str(x) for x in v)
    return out


def allowed(cfg: SchedulerConfig, job: Job, nodes=()) -> list[tuple[str, str]]:
    """(kind, name) pairs, kind "qos" or "class", other than the job's own, sorted."""
    qos = sorted(_listed(cfg, job, ("QLIST", "QDEF")) - {job.qos, ""})
    served = {p for n in nodes for p in n.partitions}
    classes = sorted((_listed(cfg, job, ("PLIST", "PDEF")) & served) - {job.class_, ""})
    return [("qos", q) for q in qos] + [("class", c) for c in classes]
