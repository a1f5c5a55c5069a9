"""maui.cfg for maui-py: one declarative parameter table, a pyparsing grammar, a typed frozen config.

    cfg = load_config("maui.cfg")          # or parse_config(text, "maui.cfg"); raises ConfigError
    cfg.get("BACKFILLPOLICY")              # BackfillPolicy.FIRSTFIT (cfg/choices.py; == "FIRSTFIT")
    cfg.indexed("RESERVATIONDEPTH")        # {0: 1}
    cfg.object("USERCFG", "john")          # CredConfig: {"PRIORITY": 100, "FSTARGET": FsTarget(10.0, "ceiling")}

See params.py for the table, docs/config-reference.md for what it generates, and
docs/compatibility.md for every place where maui-py chose between the Maui docs and 3.3.1.
"""

from .errors import ConfigError, ConfigIssue
from .loader import CredConfig, SchedulerConfig, load_config, parse_config
from .params import ALIASES, PARAMS, Attr, Param
from .values import INFINITY, FsTarget, Limit

__all__ = [
    "ALIASES", "Attr", "ConfigError", "ConfigIssue", "CredConfig", "FsTarget", "INFINITY", "Limit", "PARAMS",
    "Param", "SchedulerConfig", "load_config", "parse_config",
]
