"""What an admin expects of every program (issue 18): --version, `python -m maui_py`, one
config search order and one wording for a missing file, and commands that answer --help
without importing the parser, the planner or the cycle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import maui_py
from maui_py.cli import main as cli_main
from maui_py.daemon import main as mauid_main
from maui_py.daemon import paths

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
HEAVY = ("pyparsing", "maui_py.planning", "maui_py.core", "maui_py.store", "maui_py.cfg.loader",
         "sortedcontainers")
"""What a command must not import before it reads anything (0.1 s of the 0.13 s it took)."""


def _entry(target: str):
    module, _, attr = target.partition(":")
    return getattr(__import__(module, fromlist=[attr]), attr)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_program_prints_its_version(script, capsys):
    with pytest.raises(SystemExit) as done:
        _entry(SCRIPTS[script])(["--version"])
    assert done.value.code == 0
    expected = f"maui-py {maui_py.__version__}" if script == "maui-py" else f"{script} (maui-py) {maui_py.__version__}"
    assert capsys.readouterr().out.strip() == expected


def test_subcommands_take_version_too(capsys):
    with pytest.raises(SystemExit) as done:
        cli_main.main(["showq", "--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"showq (maui-py) {maui_py.__version__}"


def test_python_dash_m_maui_py_is_the_maui_py_command():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "maui_py", "--version"], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, f"maui-py {maui_py.__version__}")
    done = subprocess.run([sys.executable, "-m", "maui_py", "samples"], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=60)
    assert done.returncode == 0 and "slurm" in done.stdout


# ------------------------------------------------------------------ start-up imports
def _imports_after(code: str) -> dict:
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_importing_the_entry_points_imports_no_parser_planner_or_cycle():
    assert _heavy(_imports_after("import maui_py.cli.main")) == []


@pytest.mark.parametrize("command", sorted(cli_main.MAUI_COMMANDS) + ["showconfig", "check-config", "samples"])
def test_help_imports_no_parser_planner_or_cycle(command):
    entry = f"{command.replace('-', '_')}_main" if command in cli_main.MAUI_COMMANDS + ("showconfig",) else None
    call = (f"cli.{entry}(['--help'])" if entry else f"cli.main([{command!r}, '--help'])")
    code = f"import contextlib, io\nfrom maui_py.cli import main as cli\n" \
           f"with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n    {call}"
    assert _heavy(_imports_after(code)) == []


# ------------------------------------------------------------------ config search order
@pytest.fixture
def nowhere(tmp_path, monkeypatch):
    """No configuration anywhere: empty cwd, no variables, no system file."""
    monkeypatch.chdir(tmp_path)
    for name in (paths.CONFIG_ENV, "MAUIHOMEDIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(paths, "SYSTEM_CONFIG", tmp_path / "etc" / "maui.cfg")
    return tmp_path


def test_the_system_file_is_etc_maui_py_and_every_message_names_the_order():
    assert paths.SYSTEM_CONFIG == Path("/etc/maui-py/maui.cfg")
    assert paths.SEARCH_ORDER == ("-c FILE, $MAUI_PY_CONFIG, $MAUIHOMEDIR/maui.cfg, ./maui.cfg, "
                                  "/etc/maui-py/maui.cfg")
    unit = (ROOT / "maui_py" / "daemon" / "data" / "mauid.service").read_text()
    assert f"-c {paths.SYSTEM_CONFIG}" in unit


def test_no_config_anywhere_is_one_message_for_every_program(nowhere, capsys):
    assert mauid_main.main(["--once"]) == 2
    assert cli_main.run_single("showq", []) == 1
    assert cli_main.run_single("setres", ["ALL"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"mauid: {paths.NOT_FOUND}"
    assert err[1] == f"showq: {paths.NOT_FOUND} or --store PATH"
    assert err[2] == f"setres: {paths.NOT_FOUND} or --store PATH"
    assert cli_main.run_single("showconfig", []) == 0            # showconfig shows the defaults
    assert "no maui.cfg found (searched $MAUI_PY_CONFIG" in capsys.readouterr().err


@pytest.mark.parametrize("how", ["-c", "env"])
def test_a_named_file_that_is_missing_is_one_message_for_every_program(nowhere, monkeypatch, capsys, how):
    missing = nowhere / "missing.cfg"
    args = ["-c", str(missing)] if how == "-c" else []
    if how == "env":
        monkeypatch.setenv(paths.CONFIG_ENV, str(missing))
    (nowhere / "maui.cfg").write_text("LOGLEVEL 1\n")          # never used instead of a named file
    line = paths.cannot_read(missing, "No such file or directory")
    assert mauid_main.main([*args, "--once"]) == 2
    assert cli_main.run_single("showq", args) == 1
    assert cli_main.run_single("showconfig", args) == 2
    assert capsys.readouterr().err.splitlines() == [f"mauid: {line}", f"showq: {line}", f"showconfig: {line}"]


def test_mauid_searches_like_the_commands(nowhere, monkeypatch, capsys):
    """mauid used to ignore /etc: now it finds the system file (here one with an error, so that
    it stops before starting and says which file it read)."""
    paths.SYSTEM_CONFIG.parent.mkdir()
    paths.SYSTEM_CONFIG.write_text("RESERVATIONDEPTH x\n")
    assert mauid_main.main(["--once"]) == 2
    assert f"{paths.SYSTEM_CONFIG}:1:18: error: RESERVATIONDEPTH" in capsys.readouterr().err
    home = nowhere / "home"
    home.mkdir()
    (home / "maui.cfg").write_text("LOGLEVEL x\n")
    monkeypatch.setenv("MAUIHOMEDIR", str(home))
    assert mauid_main.main(["--once"]) == 2
    assert f"{home / 'maui.cfg'}:1:10: error: LOGLEVEL" in capsys.readouterr().err


def test_the_commands_find_the_store_through_the_same_search(nowhere, monkeypatch, capsys):
    from tests.cli.fixture import write_store
    home = nowhere / "home"
    home.mkdir()
    write_store(home)
    monkeypatch.setenv(paths.CONFIG_ENV, str(home / "maui.cfg"))
    assert cli_main.run_single("showq", ["--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cycle"]["store"] == str(home / "maui-py.db")
