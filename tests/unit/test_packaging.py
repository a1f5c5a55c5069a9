"""The package layout and the CI entry point stay what the README promises."""

import re
import tomllib
from pathlib import Path

import maui_py
import maui_py.adapters.slurm
import maui_py.adapters.torque

ROOT = Path(__file__).resolve().parents[2]


def test_adapters_are_imported_under_maui_py_namespace():
    assert Path(maui_py.adapters.slurm.__file__).parent == ROOT / "adapters" / "slurm"
    assert Path(maui_py.adapters.torque.__file__).parent == ROOT / "adapters" / "torque"


PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def test_declared_packages_match_the_tree():
    declared = set(SETUPTOOLS["packages"])
    roots = {"maui_py": "maui_py", **SETUPTOOLS["package-dir"]}    # adapters/, config/ mapped
    assert roots["maui_py.adapters"] == "adapters" and roots["maui_py.samples"] == "config"
    found = set()
    for package, folder in roots.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((package, *parts)))
    assert declared == found


def test_the_sample_configs_are_package_data_and_listed_by_maui_py_samples(capsys):
    from maui_py.cli.main import main
    assert SETUPTOOLS["package-data"]["maui_py.samples"] == ["*.cfg"]
    shipped = sorted(p.stem for p in (ROOT / "config").glob("*.cfg"))
    assert len(shipped) >= 5
    assert main(["samples"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == shipped
    assert all(Path(line.split()[1]).read_text() for line in listed)
    assert main(["samples", "slurm"]) == 0
    assert capsys.readouterr().out == (ROOT / "config" / "slurm.cfg").read_text()
    assert main(["samples", "nonesuch"]) == 1
    assert "no sample 'nonesuch'" in capsys.readouterr().err


def _imported_modules() -> set[str]:
    names = set()
    for path in [*(ROOT / "maui_py").rglob("*.py"), *(ROOT / "adapters").rglob("*.py")]:
        for m in re.finditer(r"^\s*(?:from|import)\s+([A-Za-z_][\w]*)", path.read_text(), re.M):
            names.add(m.group(1))
    return names


def test_every_declared_dependency_is_imported():
    """A dependency nobody imports (intervaltree was one) is dropped, not kept for later."""
    imported = _imported_modules()
    for requirement in PYPROJECT["project"]["dependencies"]:
        name = re.split(r"[<>=!~ \[]", requirement, maxsplit=1)[0]
        assert name.replace("-", "_") in imported, f"{requirement} is declared but never imported"


def test_version_is_the_projects():
    assert maui_py.__version__ == PYPROJECT["project"]["version"]


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
