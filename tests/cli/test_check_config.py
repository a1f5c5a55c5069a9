"""`maui-py check-config FILE...`: every error and warning, a summary, exit 0/1/2."""

import io
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from maui_py.cli import check_config
from maui_py.cli.main import COMMANDS, build_parser, main

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "config").glob("*.cfg"))


def run(capsys, *argv):
    status = main(["check-config", *map(str, argv)])
    return status, capsys.readouterr().out


@pytest.fixture
def files(tmp_path):
    def write(name, text):
        path = tmp_path / name
        path.write_text(text)
        return path
    return write


def test_the_samples_are_valid_and_warning_free(capsys):
    assert {p.stem for p in SAMPLES} >= {"easy", "conservative", "fairshare", "slurm", "torque"}
    status, out = run(capsys, *SAMPLES)
    assert status == 0
    assert out.count(": 0 errors, 0 warnings: valid") == len(SAMPLES)


def test_valid_file_with_warnings_and_inactive_parameters_exits_0(capsys, files):
    path = files("maui.cfg", "BACKFILLPOLICY ON\nMAXNODES 2\nLOGFILEMAXSIZE 100\n")
    status, out = run(capsys, path)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == f"{path}:1:16: warning: BACKFILLPOLICY: a true boolean is read as FIRSTFIT"
    assert lines[1].startswith(f"{path}:2:1: warning: MAXNODES: unknown parameter (did you mean")
    assert lines[2] == f"{path}:3: note: LOGFILEMAXSIZE: accepted but not acted on by maui-py"
    assert lines[3] == f"{path}: 0 errors, 2 warnings: valid"


def test_all_errors_are_listed_and_exit_1(capsys, files):
    path = files("bad.cfg", "RESERVATIONDEPTH abc\nLOGLEVEL 3\nUSERCFG[a] FSTARGET=x MAXJOB=y\nFSDECAY z\n")
    status, out = run(capsys, path)
    assert status == 1
    errors = [line for line in out.splitlines() if ": error: " in line]
    assert [line.split(": error: ")[0] for line in errors] == [f"{path}:1:18", f"{path}:3:21", f"{path}:3:30",
                                                               f"{path}:4:9"]
    assert errors[0].endswith("RESERVATIONDEPTH: 'abc' is not valid (expected <INTEGER> >= 0)")
    assert out.splitlines()[-1] == f"{path}: 4 errors, 0 warnings: invalid"


def test_quiet_shows_errors_only(capsys, files):
    path = files("q.cfg", "MAXNODES 1\nLOGLEVEL x\nLOGFILEMAXSIZE 1\n")
    status, out = run(capsys, "-q", path)
    assert status == 1 and "warning" not in out.split(": 1 error")[0] and "note:" not in out


def test_unreadable_file_exits_2_and_other_files_are_still_checked(capsys, files, tmp_path):
    good = files("good.cfg", "LOGLEVEL 2\n")
    bad = files("bad.cfg", "LOGLEVEL x\n")
    status, out = run(capsys, tmp_path / "missing.cfg", good, bad)
    assert status == 2
    assert f"{tmp_path / 'missing.cfg'}: error: cannot read" in out
    assert f"{good}: 0 errors, 0 warnings: valid" in out and f"{bad}: 1 error, 0 warnings: invalid" in out


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["check-config"])
    assert exit_.value.code == 2
    assert main([]) == 2


def test_check_file_can_write_anywhere(files):
    out = io.StringIO()
    assert check_config.check_file(str(files("x.cfg", "DEFERTIME 1:00\n")), out=out) == 0
    assert out.getvalue().endswith("0 errors, 0 warnings: valid\n")


def test_dispatcher_and_console_scripts():
    assert set(COMMANDS) >= {"check-config", "showconfig"}
    assert "check-config" in build_parser().format_help()
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    assert scripts.get("maui-py") == "maui_py.cli.main:main"
    assert scripts.get("showconfig") == "maui_py.cli.main:showconfig_main"


def test_strict_fails_on_warnings_so_a_typo_cannot_pass_a_gate(capsys, files):
    path = files("typo.cfg", "RESERVATIONDEPHT 4\nLOGLEVEL 2\n")
    status, out = run(capsys, path)
    assert status == 0 and out.splitlines()[-1] == f"{path}: 0 errors, 1 warning: valid"
    status, out = run(capsys, "--strict", path)
    assert status == 1
    assert out.splitlines()[0].startswith(f"{path}:1:1: warning: RESERVATIONDEPHT: unknown parameter "
                                          "(did you mean RESERVATIONDEPTH?)")
    assert out.splitlines()[-1] == f"{path}: 0 errors, 1 warning: invalid (--strict: warnings fail)"
    status, out = run(capsys, "--strict", "-q", path)          # -q still shows what fails the gate
    assert status == 1 and "RESERVATIONDEPHT" in out and "note:" not in out


def test_strict_passes_a_clean_file_and_every_sample(capsys, files):
    status, out = run(capsys, "--strict", files("ok.cfg", "RESERVATIONDEPTH 4\n"), *SAMPLES)
    assert status == 0 and "invalid" not in out


def test_nodes_must_be_a_hostlist(capsys, files):
    status = main(["check-config", "--nodes", "n[1-99999999]", str(files("ok.cfg", "LOGLEVEL 1\n"))])
    assert status == 2 and "--nodes: 'n[1-99999999]' names more than" in capsys.readouterr().err


def test_values_read_but_not_acted_on_are_noted_and_fail_strict(capsys, files):
    """Issue 35 item 3: preemption (a BACKFILLPOLICY value, QOS and reservation flags) is read
    but not acted on; check-config says so, and --strict fails on it as on PREEMPTPOLICY."""
    path = files("preempt.cfg", "BACKFILLPOLICY PREEMPT\nQOSCFG[hi] QFLAGS=PREEMPTOR:NOBF\n"
                                "QOSCFG[lo] QFLAGS=PREEMPTEE\nSRCFG[x] HOSTLIST=n1 FLAGS=OWNERPREEMPT\n"
                                "USERCFG[bob] QLIST=a,b QDEF=a\n")
    status, out = run(capsys, path)
    assert status == 0
    notes = [line for line in out.splitlines() if ": note: " in line and "HOSTLIST" not in line]
    assert notes == [
        f"{path}:1: note: BACKFILLPOLICY PREEMPT (maui-py preempts nothing; it backfills as FIRSTFIT): "
        "accepted but not acted on by maui-py",
        f"{path}:2: note: QOSCFG[hi] QFLAGS=PREEMPTOR: accepted but not acted on by maui-py",
        f"{path}:3: note: QOSCFG[lo] QFLAGS=PREEMPTEE: accepted but not acted on by maui-py",
        f"{path}:4: note: SRCFG[x] FLAGS=OWNERPREEMPT: accepted but not acted on by maui-py",
        f"{path}:5: note: USERCFG[bob] QLIST: accepted but not acted on by maui-py",
        f"{path}:5: note: USERCFG[bob] QDEF: accepted but not acted on by maui-py"]
    status, out = run(capsys, "--strict", "-q", path)
    assert status == 1 and "QFLAGS=PREEMPTOR" in out
    assert out.splitlines()[-1] == (f"{path}: 0 errors, 0 warnings, 6 not acted on: "
                                    "invalid (--strict: settings not acted on fail)")
    status, out = run(capsys, "--strict", files("inactive.cfg", "PREEMPTPOLICY REQUEUE\n"))
    assert status == 1


def test_the_notes_come_from_the_parameter_table():
    """Every value a value type declares not acted on is noted, and none that acts."""
    from maui_py.cfg import PARAMS, parse_config
    qflags = PARAMS["QOSCFG"].attrs["QFLAGS"].type
    assert {"NOBF", "NORESERVATION", "RESERVEALWAYS"} == set(qflags.acted)
    for flag in sorted(qflags.known):
        noted = parse_config(f"QOSCFG[q] QFLAGS={flag}\n").not_acted_on()
        assert bool(noted) == (flag not in qflags.acted), flag


def test_a_negative_limit_and_a_start_past_the_day_warn(capsys, files):
    path = files("odd.cfg", "CLASSCFG[batch] MAXPROC=-5\nSRCFG[x] HOSTLIST=n1 STARTTIME=25:00:00\n"
                            "USERCFG[a] MAXJOB=-1 MAXPROC=INFINITY\nSRCFG[y] HOSTLIST=n1 ENDTIME=24:00:00\n")
    status, out = run(capsys, path)
    warnings = [line for line in out.splitlines() if ": warning: " in line]
    assert warnings == [
        f"{path}:1:25: warning: CLASSCFG[batch] MAXPROC: negative limit '-5' read as no limit "
        "(write -1 or INFINITY for that)",
        f"{path}:2:32: warning: SRCFG[x] STARTTIME: '25:00:00' is past the end of a DAY (1:00:00:00): read as "
        "01:00:00 into the next DAY"]
    assert status == 0
    path = files("week.cfg", "SRCFG[w] STARTTIME=2:00:00:00 PERIOD=WEEK\nSRCFG[v] PERIOD=WEEK STARTTIME=8:00:00:00\n")
    status, out = run(capsys, path)
    assert [line.split(": warning: ")[1] for line in out.splitlines() if ": warning: " in line] == [
        "SRCFG[v] STARTTIME: '8:00:00:00' is past the end of a WEEK (7:00:00:00): read as 1:00:00:00 into the next WEEK"]
