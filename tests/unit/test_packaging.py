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


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    blocks = [line.strip() for line in readme.splitlines() if line.startswith("    ")]
    test_cmds = [b for b in blocks if "pytest" in b]
    assert test_cmds, "README has no test command"
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_cmds[0] in [line.strip() for line in ci]
    assert re.search(r"pip install -q -e '\.\[test\]'", "\n".join(ci))
