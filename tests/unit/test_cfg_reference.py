"""docs/config-reference.md is generated from the table and must not be stale."""

from maui_py.cfg import ALIASES, PARAMS
from maui_py.cfg.reference import DEFAULT_PATH, REGENERATE, main, render


def test_reference_is_up_to_date():
    committed = DEFAULT_PATH.read_text(encoding="utf-8") if DEFAULT_PATH.exists() else ""
    assert committed == render(), f"docs/config-reference.md is stale: run `{REGENERATE}`"


def test_reference_documents_every_parameter_attribute_and_alias():
    text = render()
    for name, param in PARAMS.items():
        assert f"`{name}" in text, name
        for attr in param.attrs:
            assert f"`{attr}" in text, (name, attr)
    for alias in ALIASES:
        assert f"`{alias}`" in text


def test_check_mode_reports_a_stale_file(tmp_path, capsys):
    stale = tmp_path / "ref.md"
    stale.write_text("old\n")
    assert main(["--check", "--output", str(stale)]) == 1
    assert REGENERATE in capsys.readouterr().err
    assert main(["--output", str(stale)]) == 0
    assert main(["--check", "--output", str(stale)]) == 0
