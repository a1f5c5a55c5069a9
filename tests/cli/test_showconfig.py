"""`showconfig [-c FILE] [-v]`: every parameter with its value in maui.cfg syntax and its source;
the output parses back to the same configuration."""

import io
from argparse import Namespace
from pathlib import Path

import pytest

from maui_py.cfg import PARAMS, CredConfig, SchedulerConfig, parse_config
from maui_py.cli import showconfig
from maui_py.cli.main import main, showconfig_main
from maui_py.daemon import paths

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "config").glob("*.cfg"))


def values(cfg, verbose=False):
    return [(n, i, dict(v) if isinstance(v, CredConfig) else v) for n, i, v, _ in cfg.items(verbose)]


def show(cfg, verbose=False):
    return showconfig.render(cfg, verbose, "test")


def test_defaults_list_every_active_parameter_once_in_table_order():
    lines = show(SchedulerConfig.default()).splitlines()
    assert lines[0] == "# maui-py showconfig: test"
    names = [line.split()[0].split("[")[0] for line in lines[1:]]
    active = [n for n, p in PARAMS.items() if p.status == "active" and p.scope != "object" and not p.maps_to]
    assert sorted(set(names)) == sorted(active)
    assert [n for n in dict.fromkeys(names)] == active
    assert all(line.endswith("# default") for line in lines[1:])


def test_values_are_in_maui_syntax_with_sources():
    cfg = parse_config("DEFERTIME 1:00:00:00\nRMPOLLINTERVAL 30\nUSERCFG[john] PRIORITY=100 FSTARGET=10.0-\n"
                       "QUEUETIMEWEIGHT[batch] 4\nLOGFILEMAXSIZE 5\n", "maui.cfg")
    text = show(cfg)
    lines = {line.split()[0]: line for line in text.splitlines()[1:]}
    assert lines["DEFERTIME"].split() == ["DEFERTIME", "1:00:00:00", "#", "maui.cfg:1"]
    assert lines["RMPOLLINTERVAL"].split()[1] == "00:00:30"
    assert lines["USERCFG[john]"].split() == ["USERCFG[john]", "PRIORITY=100", "FSTARGET=10.0-", "#", "maui.cfg:3"]
    assert lines["QUEUETIMEWEIGHT[batch]"].split()[1:] == ["4", "#", "maui.cfg:4"]
    assert lines["LOGFILEMAXSIZE"].endswith("# maui.cfg:5  (accepted, not acted on by maui-py)")
    assert "PLOTMAXPROC" not in lines


def test_verbose_adds_accepted_parameters_and_attribute_defaults():
    cfg = parse_config("SRCFG[x] STARTTIME=9:00:00\nLOGFILEMAXSIZE 5\n", "m.cfg")
    text = show(cfg, verbose=True)
    assert "PLOTMAXPROC" in text and "DEPTH=2" in text and "PERIOD=DAY" in text
    assert "# QOSNAME[<index>]" in text
    assert text.splitlines()[-2:] == ["# set but accepted, not acted on by maui-py: 1", "#   LOGFILEMAXSIZE (m.cfg:2)"]


def effective(cfg):
    """Every value in force, objects with every attribute's value (given or default)."""
    rows = []
    for name, index, value, _ in cfg.items(verbose=True):
        if isinstance(value, CredConfig):
            value = {attr: value.value(attr) for attr in sorted(set(value) | set(PARAMS[name].attrs))}
        rows.append((name, index, value))
    return rows


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("verbose", [False, True])
def test_output_parses_back_to_the_same_configuration(path, verbose):
    cfg = parse_config(path.read_text(), path.name)
    again = parse_config(show(cfg, verbose), "showconfig")
    assert again.warnings == []
    assert effective(again) == effective(cfg)
    if not verbose:
        assert values(again) == values(cfg)


def run(argv, env=None):
    out, err = io.StringIO(), io.StringIO()
    args = Namespace(config=None, verbose=False)
    for flag in argv:
        if flag == "-v":
            args.verbose = True
        else:
            args.config = flag
    return showconfig.run(args, out, err), out.getvalue(), err.getvalue()


def test_file_discovery_order(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "SYSTEM_CONFIG", tmp_path / "etc-maui.cfg")
    monkeypatch.chdir(tmp_path)
    home, local, explicit = tmp_path / "home", tmp_path / "maui.cfg", tmp_path / "x.cfg"
    home.mkdir()
    assert paths.find_config({}) is None
    (tmp_path / "etc-maui.cfg").write_text("LOGLEVEL 1\n")
    assert paths.find_config({}) == tmp_path / "etc-maui.cfg"
    local.write_text("LOGLEVEL 2\n")
    assert paths.find_config({}) == Path("maui.cfg")
    (home / "maui.cfg").write_text("LOGLEVEL 3\n")
    assert paths.find_config({"MAUIHOMEDIR": str(home)}) == home / "maui.cfg"
    assert paths.find_config({"MAUIHOMEDIR": str(home), "MAUI_PY_CONFIG": str(explicit)}) == explicit


def test_run_reads_the_environment_file(tmp_path, monkeypatch):
    path = tmp_path / "site.cfg"
    path.write_text("LOGLEVEL 7\nMAXNODES 1\n")
    monkeypatch.setenv("MAUI_PY_CONFIG", str(path))
    status, out, err = run([])
    assert status == 0 and "LOGLEVEL  " in out and "# " + f"{path}:1" in out
    assert "MAXNODES" in err and out.startswith(f"# maui-py showconfig: {path}")


def test_run_without_any_file_shows_defaults(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "SYSTEM_CONFIG", tmp_path / "none.cfg")
    monkeypatch.delenv("MAUI_PY_CONFIG", raising=False)
    monkeypatch.delenv("MAUIHOMEDIR", raising=False)
    monkeypatch.chdir(tmp_path)
    status, out, err = run([])
    assert status == 0 and "showing the defaults" in err and "BACKFILLPOLICY" in out


def test_errors_and_unreadable_files(tmp_path):
    bad = tmp_path / "bad.cfg"
    bad.write_text("LOGLEVEL x\n")
    status, out, err = run([str(bad)])
    assert status == 1 and out == "" and f"{bad}:1:10: error: LOGLEVEL" in err
    status, out, err = run([str(tmp_path / "missing.cfg")])
    assert status == 2 and "cannot read" in err


def test_entry_points(tmp_path, capsys):
    path = tmp_path / "m.cfg"
    path.write_text("RESERVATIONDEPTH 3\n")
    assert showconfig_main(["-c", str(path)]) == 0
    assert "RESERVATIONDEPTH[0]" in capsys.readouterr().out
    assert main(["showconfig", "-v", "-c", str(path)]) == 0
    assert "PLOTMAXPROC" in capsys.readouterr().out
