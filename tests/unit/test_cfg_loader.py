"""SchedulerConfig: the interface the rest of maui-py codes against, and the loader's rules
(file order, accumulation, errors never half-applied, sources, overrides)."""

import pytest

from tests.opcount import calls

from maui_py.cfg import (
    INFINITY, ConfigError, ConfigIssue, FsTarget, Limit, SchedulerConfig, load_config, parse_config,
)


def issues(cfg):
    return [(w.line, w.column, w.parameter) for w in cfg.warnings]


def test_defaults_without_a_file():
    cfg = SchedulerConfig.default()
    assert cfg.get("BACKFILLPOLICY") == "FIRSTFIT"
    assert cfg.indexed("RESERVATIONDEPTH") == {0: 1}
    assert cfg.indexed("RESERVATIONQOSLIST") == {0: ("ALL",)}
    assert cfg.get("FSINTERVAL") == 43200 and cfg.get("XFMINWCLIMIT") == 120 and cfg.get("JOBMAXOVERRUN") == 600
    assert cfg.source("RESERVATIONDEPTH", index=0) == "default"
    assert not cfg.is_set("BACKFILLPOLICY") and cfg.warnings == [] and cfg.objects("USERCFG") == {}
    assert parse_config("") == cfg


def test_scalar_values_sources_and_last_wins():
    cfg = parse_config("BACKFILLPOLICY BESTFIT\nDEFERTIME 0:05:00\nDEFERTIME 0:10:00\n", "maui.cfg")
    assert cfg.get("BACKFILLPOLICY") == "BESTFIT" and cfg.is_set("BACKFILLPOLICY")
    assert cfg.get("DEFERTIME") == 600 and cfg.source("DEFERTIME") == "maui.cfg:3"
    assert issues(cfg) == [(3, 1, "DEFERTIME")] and "maui.cfg:2" in cfg.warnings[0].message


def test_partition_values_fall_back_to_global():
    cfg = parse_config("QUEUETIMEWEIGHT 2\nQUEUETIMEWEIGHT[batch] 5\nBACKFILLPOLICY[debug] NONE\n", "m.cfg")
    assert cfg.get("QUEUETIMEWEIGHT", partition="batch") == 5
    assert cfg.get("QUEUETIMEWEIGHT", partition="other") == 2 == cfg.get("QUEUETIMEWEIGHT")
    assert cfg.get("BACKFILLPOLICY", "debug") == "NONE" and cfg.get("BACKFILLPOLICY") == "FIRSTFIT"
    assert cfg.indexed("QUEUETIMEWEIGHT") == {"ALL": 2, "batch": 5}
    assert cfg.source("QUEUETIMEWEIGHT", partition="batch") == "m.cfg:2"
    assert cfg.source("QUEUETIMEWEIGHT", partition="other") == "m.cfg:1"
    assert cfg.source("BACKFILLPOLICY", partition="other") == "default"


def test_partition_zero_and_all_mean_every_partition():
    cfg = parse_config("QUEUETIMEWEIGHT[0] 20\nRESWEIGHT[ALL] 3\n")
    assert cfg.get("QUEUETIMEWEIGHT") == 20 and cfg.get("RESWEIGHT") == 3
    assert issues(cfg) == [(1, 17, "QUEUETIMEWEIGHT[0]")]


def test_reservation_stacks():
    cfg = parse_config("RESERVATIONDEPTH[0] 2\nRESERVATIONDEPTH[2] 4\nRESERVATIONQOSLIST[2] hi,low\n"
                       "RESERVATIONQOSLIST [ALL]\n")
    assert cfg.indexed("RESERVATIONDEPTH") == {0: 2, 2: 4}
    assert cfg.indexed("RESERVATIONQOSLIST") == {0: ("ALL",), 2: ("hi", "low")}
    assert cfg.get("RESERVATIONDEPTH", index=1) == 0 and cfg.get("RESERVATIONQOSLIST", index=1) == ("ALL",)
    assert cfg.is_set("RESERVATIONDEPTH", 2) and not cfg.is_set("RESERVATIONDEPTH", 1)


def test_stack_index_quirks():
    cfg = parse_config("RESERVATIONDEPTH[x] 3\nRESERVATIONDEPTH[500] 2\n")
    assert cfg.indexed("RESERVATIONDEPTH") == {0: 3, 127: 2} and len(cfg.warnings) == 2
    with pytest.raises(ConfigError) as failure:
        parse_config("RESERVATIONDEPTH[-1] 2\n")
    assert (failure.value.issues[0].line, failure.value.issues[0].column) == (1, 18)


def test_objects_accumulate_and_override_per_attribute():
    cfg = parse_config("USERCFG[DEFAULT] FSTARGET=25.0\nUSERCFG[john] PRIORITY=100 FSTARGET=10.0-\n"
                       "USERCFG[john] MAXJOB=2,4\nUSERCFG[john] PRIORITY=5\n", "maui.cfg")
    john = cfg.object("USERCFG", "john")
    assert dict(john) == {"PRIORITY": 5, "FSTARGET": FsTarget(10.0, "ceiling"), "MAXJOB": Limit(2, 4)}
    assert john.source("PRIORITY") == "maui.cfg:4" and john.source("MAXJOB") == "maui.cfg:3"
    assert john.source("QDEF") == "default" and john.value("QDEF") is None and john.value("PRIORITY") == 5
    assert set(cfg.objects("USERCFG")) == {"DEFAULT", "john"}
    assert cfg.object("USERCFG", "nobody") == {} and cfg.source("USERCFG", "john") == "maui.cfg:2,3,4"
    assert issues(cfg) == [(4, 15, "USERCFG[john] PRIORITY")]
    with pytest.raises(TypeError):
        john["PRIORITY"] = 1  # type: ignore[index]


def test_attribute_aliases_multidimensional_limits_and_operators():
    cfg = parse_config("CLASSCFG[batch] FLAGS=PREEMPTEE MAXPROC[user:steve]=50 MAXJOB[GROUP]=12\n"
                       "QOSCFG[hi] FLAGS=PREEMPTOR QLIST=a\nGROUPCFG[g] QLIST=a,b\nGROUPCFG[g] QLIST+=c QLIST-=a\n")
    batch = cfg.object("CLASSCFG", "batch")
    assert batch["JOBFLAGS"] == frozenset({"PREEMPTEE"})
    assert batch["MAXPROC[USER:steve]"] == Limit(50, 50) and batch["MAXJOB[GROUP]"] == Limit(12, 12)
    assert cfg.object("QOSCFG", "hi")["QFLAGS"] == frozenset({"PREEMPTOR"})
    assert cfg.object("GROUPCFG", "g")["QLIST"] == ("b", "c")
    assert cfg.warnings == []


def test_unknown_names_warn_with_suggestions_and_are_not_applied():
    cfg = parse_config("MAXNODES 4\nRESERVATIONDEPHT 3\nQOSCFG[c] PRIORITY=1000 MAXJOB=4 MAXPROCS=80\n")
    messages = [str(w) for w in cfg.warnings]
    assert "did you mean USERCFG[<NAME>] MAXNODE=?" in messages[0]
    assert "did you mean RESERVATIONDEPTH?" in messages[1] and cfg.get("RESERVATIONDEPTH") == 1
    assert "did you mean MAXPROC?" in messages[2] and "MAXPROCS" not in cfg.object("QOSCFG", "c")
    assert issues(cfg) == [(1, 1, "MAXNODES"), (2, 1, "RESERVATIONDEPHT"), (3, 34, "QOSCFG[c] MAXPROCS")]


def test_legacy_forms_are_stored_in_their_objects():
    cfg = parse_config("SRSTARTTIME[1] 8:00:00\nSRDAYS[1] Mon Tue\nRMTYPE[0] PBS\nQOSPRIORITY[hi] 100\n")
    assert dict(cfg.object("SRCFG", "1")) == {"STARTTIME": 28800, "DAYS": ("MON", "TUE")}
    assert cfg.object("RMCFG", "0")["TYPE"] == "PBS" and cfg.get("RMTYPE", index="0") == "PBS"
    assert cfg.object("QOSCFG", "hi")["PRIORITY"] == 100
    assert cfg.indexed("SRSTARTTIME") == {"1": 28800} and cfg.is_set("SRDAYS")


def test_index_on_a_global_parameter_is_ignored_with_a_warning():
    cfg = parse_config("LOGLEVEL[1] 3\n")
    assert cfg.get("LOGLEVEL") == 3 and issues(cfg) == [(1, 10, "LOGLEVEL[1]")]


def test_errors_are_all_reported_and_nothing_is_returned():
    text = "LOGLEVEL x\nBACKFILLPOLICY BESTFIT\nUSERCFG[a] FSTARGET=no PRIORITY=1\nFSDECAY abc\nMAXNODES 1\n"
    with pytest.raises(ConfigError) as failure:
        parse_config(text, "maui.cfg")
    error = failure.value
    assert [(i.line, i.column, i.parameter, i.value) for i in error.issues] == [
        (1, 10, "LOGLEVEL", "x"), (3, 21, "USERCFG[a] FSTARGET", "no"), (4, 9, "FSDECAY", "abc")]
    assert all(i.severity == "error" and i.expected for i in error.issues)
    assert [w.parameter for w in error.warnings] == ["MAXNODES"]
    assert str(error).splitlines()[0] == "3 configuration errors:"
    assert "maui.cfg:4:9: error: FSDECAY: 'abc' is not valid (expected <DOUBLE>)" in str(error)


def test_issue_text_layout():
    issue = ConfigIssue("maui.cfg", 12, 18, "RESERVATIONDEPTH", "abc", "<INTEGER>",
                        "'abc' is not valid (expected <INTEGER>)")
    assert str(issue) == "maui.cfg:12:18: error: RESERVATIONDEPTH: 'abc' is not valid (expected <INTEGER>)"
    assert issue.is_error


def test_with_overrides_validates_and_copies():
    base = parse_config("BACKFILLPOLICY FIRSTFIT\n", "maui.cfg")
    cfg = base.with_overrides({"RESERVATIONDEPTH": 5, "BACKFILLPOLICY": "BESTFIT", "RESERVATIONDEPTH[1]": "2",
                               "USERCFG[john]": {"PRIORITY": 3, "FSTARGET": 10.0}, "QOSCFG[hi]": "QFLAGS=NOBF",
                               "FSINTERVAL": "1:00:00", "CLASSCFG[b]": {"MAXPROC[USER:x]": (1, 2)}})
    assert cfg.indexed("RESERVATIONDEPTH") == {0: 5, 1: 2} and cfg.get("BACKFILLPOLICY") == "BESTFIT"
    assert dict(cfg.object("USERCFG", "john")) == {"PRIORITY": 3, "FSTARGET": FsTarget(10.0)}
    assert cfg.object("QOSCFG", "hi")["QFLAGS"] == frozenset({"NOBF"}) and cfg.get("FSINTERVAL") == 3600
    assert cfg.object("CLASSCFG", "b")["MAXPROC[USER:x]"] == Limit(1, 2)
    assert cfg.source("BACKFILLPOLICY") == "override" and base.get("BACKFILLPOLICY") == "FIRSTFIT"
    with pytest.raises(ConfigError) as failure:
        base.with_overrides({"RESERVATIONDEPTH": "x", "LOGLEVEL": 42, "NOPE": 1, "USERCFG[a]": {"BOGUS": 1}})
    assert len(failure.value.issues) == 4


def test_items_cover_every_value_in_table_order():
    cfg = parse_config("QUEUETIMEWEIGHT[batch] 5\nUSERCFG[john] PRIORITY=1\nLOGFILEMAXSIZE 5\n", "m.cfg")
    rows = list(cfg.items())
    names = [name for name, *_ in rows]
    assert names.index("RESERVATIONDEPTH") < names.index("BACKFILLPOLICY") < names.index("USERCFG")
    assert ("QUEUETIMEWEIGHT", "batch", 5, "m.cfg:1") in rows
    assert ("USERCFG", "john", cfg.object("USERCFG", "john"), "m.cfg:2") in rows
    short = {name for name, *_ in cfg.items(verbose=False)}
    assert "LOGFILEMAXSIZE" in short and "PLOTMAXPROC" not in short and "PLOTMAXPROC" in names
    assert cfg.not_acted_on() == [("LOGFILEMAXSIZE", "m.cfg:3")]


def test_site_syntax_of_spec_section_8_loads_with_warnings():
    text = (
        "SERVERHOST            @HOSTNAME@\n"
        "RMCFG[@MACHINE@] TYPE=@RMTYPE@\n"
        "BACKFILLPOLICY  ON #FIRSTFIT by default\n"
        "FSPOLICY\tPSDEDICATED\t# wrong but common\n"
        "RMTYPE[0] PBS\n"
        "CLASSCFG[batch] MAXJOB=5,10   \n"
        "CLASSCFG[batch] MAXWC=168:00:00\n"
        "SRCFG[x] DAYS=MON,TUE WSTARTTIME=00:22:00:00\n"
        "SRCFG[x] HOSTLIST=^compute-0-[0-9] RESOURCES=PROCS:4;MEM:1000\n"
        "SRDAYS[y] MON TUE\n"
        "SYSCFG[base] PLIST=\n"
        "NODECFG[DEFAULT] PRIORITYF=-1.00*AMEM-1.00*APROCS\n"
        "RESERVATIONQOSLIST all\n"
        "MAXNODES 4\n"
        "LOGFILEROLEDEPTH 3\n"
        "# Kommentar: Größe ändern\n"
        "DEFERTIME 1:00:00:00\n"
        "DEFERTIME 0:00:00\n"
    )
    cfg = parse_config(text, "site.cfg")
    assert cfg.get("SERVERHOST") is None and cfg.objects("RMCFG") == {"0": cfg.object("RMCFG", "0")}
    assert cfg.get("BACKFILLPOLICY") == "FIRSTFIT" and cfg.get("FSPOLICY") == "DEDICATEDPS"
    assert dict(cfg.object("CLASSCFG", "batch")) == {"MAXJOB": Limit(5, 10), "MAXWC": Limit(604800, 604800)}
    x = cfg.object("SRCFG", "x")
    assert x["DAYS"] == ("MON", "TUE") and x["WSTARTTIME"] == 79200 and x["HOSTLIST"] == ("^compute-0-[0-9]",)
    assert x["RESOURCES"] == (("PROCS", 4), ("MEM", 1000)) and cfg.object("SRCFG", "y")["DAYS"] == ("MON", "TUE")
    assert cfg.object("SYSCFG", "base")["PLIST"] == ()
    assert cfg.object("NODECFG", "DEFAULT")["PRIORITYF"] == "-1.00*AMEM-1.00*APROCS"
    assert cfg.get("RESERVATIONQOSLIST") == ("ALL",) and cfg.get("DEFERTIME") == 0
    assert [w.line for w in cfg.warnings] == [1, 2, 3, 4, 13, 14, 15, 18]


def test_load_config_reads_files_and_wraps_os_errors(tmp_path):
    path = tmp_path / "maui.cfg"
    path.write_bytes("LOGLEVEL 4 # \xe9t\xe9\n".encode("latin-1"))
    cfg = load_config(path)
    assert cfg.get("LOGLEVEL") == 4 and cfg.source("LOGLEVEL") == f"{path}:1"
    with pytest.raises(ConfigError) as failure:
        load_config(tmp_path / "missing.cfg")
    assert "cannot read" in str(failure.value) and failure.value.issues[0].line == 0


def test_time_values_infinity_and_no_limit():
    cfg = parse_config("SYSTEMMAXJOBWALLTIME INFINITY\nJOBMAXSTARTTIME -1\nRMPOLLINTERVAL 45\n")
    assert cfg.get("SYSTEMMAXJOBWALLTIME") == INFINITY and cfg.get("JOBMAXSTARTTIME") == -1
    assert cfg.get("RMPOLLINTERVAL") == 45


def test_parse_work_is_linear_in_file_size():
    """Linearity as an operation count (function calls), which a loaded machine cannot change;
    the parse time itself is measured by benchmarks/parse_scaling.py."""
    block = "".join(f"USERCFG[u{i}] PRIORITY={i} FSTARGET={i % 50}.0- MAXJOB=2,4\nQUEUETIMEWEIGHT {i}\n"
                    for i in range(40))
    small, large = calls(parse_config, block), calls(parse_config, block * 8)
    assert 0 < large < small * 8 * 1.25, (small, large)
