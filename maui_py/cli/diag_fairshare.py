"""`diagnose -f`: fair-share usage and targets per credential, as Maui 3.3.1's MFSShow (MFS.c).

The usage windows are the ones the daemon keeps in its state (priority/fairshare.py):
window 0 is the current FSINTERVAL, window i the i-th before it. Columns appear for the
windows where the system used anything; `TotalUsage` is processor-hours. A credential's
line gives its share of the decayed usage, its target (its own FSTARGET, else its kind's
DEFAULT; `-------` without one) and its share of each window; `*` marks one off target (a
floor under, a ceiling over, a plain target more than 5 points away). Credentials with no
target and no usage are left out unless `-v`.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..cfg import SchedulerConfig
from ..cfg.values import FsTarget
from ..model.times import multotstring as tstr
from ..priority.fairshare import KINDS, SYSTEM, FairShare

KIND_NAMES = {"user": "USER", "group": "GROUP", "acct": "ACCT", "qos": "QOS", "class": "CLASS"}
MODE_CHAR = {"target": " ", "floor": "+", "ceiling": "-", "caprel": "%", "capabs": "^"}


def target_text(t: FsTarget | None) -> str:
    """MFSTargetToString: `%.2lf` and the mode character."""
    return "0.00 " if t is None else "%.2f%s" % (t.value, MODE_CHAR[t.mode])


def collect(cfg: SchedulerConfig, policy_data: Mapping[str, Any] | None, verbose: bool) -> dict[str, Any]:
    fs = FairShare(cfg)
    fs.restore((policy_data or {}).get("fairshare"))
    cur = fs.last // fs.interval if fs.last is not None else None

    def window(i: int, key: str) -> float:
        return 0.0 if cur is None else fs.windows.get(cur - i, {}).get(key, 0.0)

    system = [window(i, SYSTEM) for i in range(fs.depth)]
    shown = [i for i in range(fs.depth) if system[i] > 0]
    total = fs.usage(SYSTEM) if cur is not None else 0.0
    kinds = []
    for prefix, param, _attr, _sf in KINDS:
        names = {n for n in cfg.objects(param) if n not in ("DEFAULT", "ALL")}
        names |= {k.split(":", 1)[1] for w in fs.windows.values() for k in w
                  if k.startswith(prefix + ":") and k.split(":", 1)[1]}
        rows = []
        for name in sorted(names):
            key = f"{prefix}:{name}"
            t = fs.target(prefix, name)
            usage = [window(i, key) for i in range(fs.depth)]
            decayed = fs.usage(key) if cur is not None else 0.0
            if t is None and decayed == 0.0 and usage[0] == 0.0 and not verbose:
                continue
            pct = decayed / total * 100.0 if total > 0 else 0.0
            off = total > 0 and t is not None and (
                (t.mode == "floor" and pct < t.value) or (t.mode == "ceiling" and pct > t.value)
                or (t.mode == "target" and abs(pct - t.value) > 5.0))
            rows.append({"name": name, "percent": pct, "target": target_text(t) if t else None,
                         "off_target": off,
                         "windows": [usage[i] / system[i] * 100.0 if usage[i] > 0 else None for i in shown]})
        if rows:
            kinds.append({"kind": KIND_NAMES[prefix], "credentials": rows})
    policy = str(cfg.get("FSPOLICY")).rstrip("%")
    return {"depth": fs.depth, "interval": int(cfg.get("FSINTERVAL")), "decay": fs.decay,
            "policy": "[NONE]" if policy == "NONE" else policy, "system_target": target_text(None),
            "windows": shown, "weights": [fs.decay ** i for i in shown],
            "total_hours": [system[i] / 3600.0 for i in shown], "kinds": kinds}


def render(d: Mapping[str, Any]) -> str:
    out = ["FairShare Information\n\n",
           "Depth: %d intervals   Interval Length: %s   Decay Rate: %.2f\n\n"
           % (d["depth"], tstr(d["interval"]), d["decay"]),
           "FS Policy: %s\n" % d["policy"],
           "System FS Settings:  Target Usage: %s   Flags: %d\n\n" % (d["system_target"], 0),
           "%-14s %7s %7s" % ("FSInterval", "  %   ", "Target") + "".join(" %7d" % i for i in d["windows"]) + "\n",
           "%-14s %7s %7s" % ("FSWeight", "-------", "-------") + "".join(" %7.4f" % w for w in d["weights"]) + "\n",
           "%-14s %7.2f %7s" % ("TotalUsage", 100.0, "-------")
           + "".join(" %7.1f" % h for h in d["total_hours"]) + "\n"]
    for kind in d["kinds"]:
        out.append("\n%s\n-------------\n" % kind["kind"])
        for c in kind["credentials"]:
            name = c["name"] + ("*" if c["off_target"] else "")
            target = ("%7.7s" % c["target"]) if c["target"] else "-------"
            out.append("%-14s %7.2f %7s" % (name, c["percent"], target)
                       + "".join(" %7.2f" % w if w is not None else " -------" for w in c["windows"]) + "\n")
    return "".join(out)
