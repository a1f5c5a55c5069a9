"""The configuration halves of spec section 7, cases 1-5: each parses into the typed values the
priority and fair-share engines will read."""

import pytest

from maui_py.cfg import FsTarget, SchedulerConfig, parse_config

COMPONENTS = ("SERVICE", "TARGET", "CRED", "ATTR", "FS", "RES", "USAGE")
SUBCOMPONENTS = ("XFACTOR", "SPVIOLATION", "BYPASS", "TARGETQUEUETIME", "TARGETXFACTOR", "USER", "GROUP",
                 "ACCOUNT", "QOS", "CLASS", "FSUSER", "FSGROUP", "FSACCOUNT", "FSQOS", "FSCLASS", "NODE", "PROC",
                 "MEM", "SWAP", "DISK", "PS", "PE", "WALLTIME", "UPROC", "UJOB")


def test_case_1_defaults_give_fifo_by_queued_minutes():
    cfg = SchedulerConfig.default()
    assert all(cfg.get(f"{c}WEIGHT") == 1 for c in COMPONENTS)
    assert all(cfg.get(f"{s}WEIGHT") == 0 for s in SUBCOMPONENTS)
    assert cfg.get("QUEUETIMEWEIGHT") == 1 and cfg.get("QUEUETIMECAP") == 0.0
    assert cfg.get("REJECTNEGPRIOJOBS") is False and cfg.get("ENABLENEGJOBPRIORITY") is False
    assert cfg.get("FSPOLICY") == "NONE"


def test_case_2_user_priority_and_user_weight():
    cfg = parse_config("USERWEIGHT 1\nUSERCFG[john] PRIORITY=300\n")
    assert cfg.get("USERWEIGHT") == 1 and cfg.get("CREDWEIGHT") == 1
    assert cfg.object("USERCFG", "john")["PRIORITY"] == 300
    assert cfg.object("USERCFG", "mary").value("PRIORITY") == 0


def test_case_3_xfactor_settings():
    cfg = parse_config("XFACTORWEIGHT 1\nXFMINWCLIMIT 00:02:00\n")
    assert cfg.get("XFACTORWEIGHT") == 1 and cfg.get("XFMINWCLIMIT") == 120
    queued, one_hour, four_hours = 7200, 3600, 14400
    xfactor = lambda wclimit: (queued + wclimit) / max(cfg.get("XFMINWCLIMIT"), wclimit)  # noqa: E731
    assert (round(xfactor(one_hour), 2), round(xfactor(four_hours), 2)) == (3.0, 1.5)


def test_case_4_fairshare_windows_and_decay():
    cfg = parse_config("FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\nFSDEPTH 4\nFSDECAY 0.5\n")
    assert (cfg.get("FSPOLICY"), cfg.get("FSINTERVAL"), cfg.get("FSDEPTH"), cfg.get("FSDECAY")) == \
        ("DEDICATEDPS", 43200, 4, 0.5)
    john, total = (60, 0, 10, 50), (110, 125, 100, 150)
    decayed = lambda usage: sum(u * cfg.get("FSDECAY") ** i for i, u in enumerate(usage[:cfg.get("FSDEPTH")]))  # noqa
    assert decayed(john) / decayed(total) == pytest.approx(68.75 / 216.25)


@pytest.mark.parametrize("text, mode", [("10", "target"), ("10+", "floor"), ("10-", "ceiling"), ("10^", "capabs"),
                                        ("10%", "caprel")])
def test_case_5_fstarget_suffixes(text, mode):
    cfg = parse_config(f"FSPOLICY DEDICATEDPS\nUSERCFG[john] FSTARGET={text}\nGROUPCFG[g] FSTARGET={text}\n")
    assert cfg.object("USERCFG", "john")["FSTARGET"] == FsTarget(10.0, mode)
    assert cfg.object("GROUPCFG", "g")["FSTARGET"].mode == mode
