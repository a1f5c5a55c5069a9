"""The package layout and the CI entry point stay what the README promises."""

import re
import tomllib
from pathlib import Path

import maui_py.adapters.slurm
import maui_py.adapters.torque

ROOT = Path(__file__).resolve().parents[2]


def test_adapters_are_imported_under_maui_py_namespace():
    assert Path(maui_py.adapters.slurm.__file__).parent == ROOT / "adapters" / "slurm"
    assert Path(maui_py.adapters.torque.__file__).parent == ROOT / "adapters" / "torque"


def test_declared_packages_match_the_tree():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    declared = set(conf["tool"]["setuptools"]["packages"])
    found = {"maui_py." + ".".join(p.parent.relative_to(ROOT / "maui_py").parts)
             for p in (ROOT / "maui_py").rglob("__init__.py")}
    found = {f.rstrip(".") for f in found}
    found |= {"maui_py.adapters" + ("." + ".".join(p.parent.relative_to(ROOT / "adapters").parts)
                                    if p.parent != ROOT / "adapters" else "")
              for p in (ROOT / "adapters").rglob("__init__.py")}
    assert declared == found


def setup_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return [line.strip() for line in section.splitlines() if line.startswith("    ")]


def test_readme_has_two_setup_commands_and_ci_runs_the_test_one():
    install_and_run, test = setup_commands()
    assert "pip install -e '.[test]'" in install_and_run and "maui-sim" in install_and_run
    assert "pytest" in test
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test in ci
    assert any(re.fullmatch(r"\.venv/bin/pip install -q -e '\.\[test\]'", line) for line in ci)
    venv, pip_install, _run = install_and_run.split(" && ")
    assert venv in ci
