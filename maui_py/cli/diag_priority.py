"""`diagnose -p`: each idle job's priority by component, as Maui 3.3.1 prints it
(UserI.c UIDiagnosePriority with MPriority.c MJobGetStartPriority modes 1, 0 and 2).

A component shows when its weight and one of its subweights are set (SERV also when a QOS
sets QTWEIGHT/XFWEIGHT). Per job: the raw priority (before clipping and setspri), `*` when
a system priority is set, then per component `PCT(values)`: PCT is the component's share of
the job's absolute priority; the values are the capped subfactors for CRED and CW x SW x SF
for the others, except TARG, whose values repeat its share (Maui's own quirk, kept). The
footer gives each component's and subcomponent's share of all jobs' priority.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..priority.engine import PriorityEngine
from .view import View

# (component, header label, [(subfactor, label)]) in Maui's display order
LAYOUT: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    ("CRED", "  Cred", (("USER", " User"), ("GROUP", "Group"), ("ACCOUNT", "Accnt"), ("QOS", "  QOS"),
                        ("CLASS", "Class"))),
    ("FS", "    FS", (("FSUSER", " User"), ("FSGROUP", "Group"), ("FSACCOUNT", "Accnt"),
                      ("FSQOS", "  QOS"), ("FSCLASS", "Class"))),
    ("ATTR", "  Attr", ()),
    ("SERV", "  Serv", (("QUEUETIME", "QTime"), ("XFACTOR", "XFctr"), ("SPVIOLATION", "SPVio"),
                        ("BYPASS", "Bypas"))),
    ("TARG", "  Targ", (("TARGETQUEUETIME", "QTime"), ("TARGETXFACTOR", "XFctr"))),
    ("RES", "   Res", (("NODE", " Node"), ("PROC", " Proc"), ("MEM", "  Mem"), ("SWAP", " Swap"),
                       ("DISK", " Disk"), ("PS", "   PS"), ("PE", "   PE"), ("UPROC", "UProc"),
                       ("UJOB", " UJob"), ("WALLTIME", "WTime"))),
    ("USAGE", "   Res", (("CONSUMED", "Cons "), ("REMAINING", "Rem  "), ("PERCENT", "PerC "))),
)


def _f(x: float) -> str:
    """Maui's `%5.5s` of `%3.1lf`."""
    return ("%3.1f" % x)[:5].rjust(5)


def collect(view: View) -> dict[str, Any]:
    eng = PriorityEngine(view.cfg)
    qos = {name: obj for name, obj in view.cfg.objects("QOSCFG").items()}
    display = {"QUEUETIME": bool(eng.sw["QUEUETIME"]) or any(q.get("QTWEIGHT") for q in qos.values()),
               "XFACTOR": bool(eng.sw["XFACTOR"]) or any(q.get("XFWEIGHT") for q in qos.values())}
    comps = []
    for c, label, subs in LAYOUT:
        shown = [(s, lab) for s, lab in subs if eng.sw[s] or display.get(s)]
        comps.append({"name": c, "label": label, "weight": eng.cw[c],
                      "shown": [s for s, _ in shown], "labels": [lab for _, lab in shown],
                      "weights": [eng.sw[s] for s, _ in shown],
                      "footer_subs": [s for s, _ in subs if eng.sw[s]]})
    jobs = []
    for j in view.idle:
        b = view.last.priorities.get(j.id)
        if b is None:
            continue
        capped = {s: (min(v, eng.scap[s]) if eng.scap[s] > 0 else v) for s, v in b.subfactors.items()}
        jobs.append({"id": j.id, "priority": b.priority, "system": view.system_priority(j) > 0,
                     "components": dict(b.components), "subfactors": capped,
                     "weighted": dict(b.weighted)})
    return {"partition": "ALL", "components": comps, "jobs": jobs}


def _shown(comp: Mapping[str, Any]) -> bool:
    return bool(comp["weight"]) and bool(comp["shown"])


def render(d: Mapping[str, Any]) -> str:
    comps = d["components"]
    if not d["jobs"]:
        return "no idle jobs in queue\n"
    head = "".join(f"{c['label']}({':'.join(c['labels'])})" for c in comps if _shown(c))
    weights = "".join(" %5d(%s)" % (c["weight"], ":".join("%5d" % w for w in c["weights"]))
                      for c in comps if _shown(c))
    out = ["diagnosing job priority information (partition: %s)\n\n" % d["partition"],
           "%-20s %10s%c %s\n" % ("Job", "PRIORITY", "*", head),
           "%20s %10s%c %s\n" % ("Weights", "--------", " ", weights), "\n"]
    total = 0.0
    tot_c: dict[str, float] = {}
    tot_s: dict[str, float] = {}
    for j in d["jobs"]:
        absolute = sum(abs(v) for v in j["components"].values())
        total += absolute
        line = []
        for c in comps:
            name, cw = c["name"], c["weight"]
            contrib = j["components"].get(name, 0.0)
            if cw:
                tot_c[name] = tot_c.get(name, 0.0) + abs(contrib / cw)
            for s in c["footer_subs"]:
                tot_s[s] = tot_s.get(s, 0.0) + abs(j["subfactors"].get(s, 0.0))
            if not _shown(c):
                continue
            pct = abs(contrib) / absolute * 100.0 if absolute else 0.0
            if name == "CRED":
                vals = [_f(abs(j["subfactors"].get(s, 0.0))) for s in c["shown"]]
            elif name == "TARG":
                vals = [_f(pct) for _ in c["shown"]]
            else:
                vals = [_f(cw * j["weighted"].get(s, 0.0)) for s in c["shown"]]
            line.append(" %s(%s)" % (_f(pct), ":".join(vals)))
        out.append("%-20s %10.0f%c %s\n" % (j["id"], j["priority"], "*" if j["system"] else " ", "".join(line)))
    foot = []
    for c in comps:
        name, cw = c["name"], c["weight"]
        if not cw or not c["footer_subs"]:
            continue
        sw = dict(zip(c["shown"], c["weights"]))
        subs = [_f(abs(tot_s.get(s, 0.0) * sw.get(s, 0.0) * cw * 100.0 / total) if total else 0.0)
                for s in c["footer_subs"]]
        share = abs(tot_c.get(name, 0.0) * cw * 100.0 / total) if total else 0.0
        foot.append(" %s(%s)" % (_f(share), ":".join(subs)))
    out += ["\n", "%-20s %10s%c %s\n" % ("Percent Contribution", "--------", " ", "".join(foot)), "\n",
            "* indicates system prio set on job\n"]
    return "".join(out)
