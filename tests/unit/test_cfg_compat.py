"""docs/maui-parameters.md (what maui-py does with each Maui parameter) is generated from the
parameter table and must not be stale; every parameter and its status is on it."""

from maui_py.cfg import ALIASES, PARAMS
from maui_py.cfg.compat import DEFAULT_PATH, REGENERATE, main, render
from maui_py.cfg.params import ACTIVE


def test_the_page_is_up_to_date():
    committed = DEFAULT_PATH.read_text(encoding="utf-8") if DEFAULT_PATH.exists() else ""
    assert committed == render(), f"docs/maui-parameters.md is stale: run `{REGENERATE}`"


def test_every_parameter_is_one_row_with_what_maui_py_does():
    rows = {line.split("|")[1].strip().strip("`"): line for line in render().splitlines()
            if line.startswith("| `")}
    for name, param in PARAMS.items():
        line = rows[name]
        expected = ("read as" if param.maps_to else "acted on" if param.status == ACTIVE else "accepted, ignored")
        assert f"| {expected}" in line, line
    assert all(alias in rows for alias in ALIASES)
    assert "`PREEMPT` not acted on" in rows["BACKFILLPOLICY"]
    assert "QFLAGS: flags acted on: `NOBF`, `NORESERVATION`, `RESERVEALWAYS`" in rows["QOSCFG"]
    assert "`QLIST`, `QDEF`" in rows["USERCFG"]


def test_compatibility_links_the_page():
    text = (DEFAULT_PATH.parent / "compatibility.md").read_text(encoding="utf-8")
    assert "(maui-parameters.md)" in text


def test_check_mode_reports_a_stale_file(tmp_path, capsys):
    stale = tmp_path / "page.md"
    stale.write_text("old\n")
    assert main(["--check", "--output", str(stale)]) == 1
    assert REGENERATE in capsys.readouterr().err
    assert main(["--output", str(stale)]) == 0
    assert main(["--check", "--output", str(stale)]) == 0
