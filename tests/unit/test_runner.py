import pytest

from maui_py.rm import RMError
from maui_py.rm.runner import run


def test_run_passes_arguments_verbatim_never_through_a_shell(tmp_path):
    marker = tmp_path / "pwned"
    r = run(["echo", f"$(touch {marker})", ";rm -rf /", "a'b\"c\nd"])
    assert r.returncode == 0
    assert r.stdout == f"$(touch {marker}) ;rm -rf / a'b\"c\nd\n"
    assert not marker.exists()


def test_run_refuses_shell_strings_and_reports_failures():
    with pytest.raises(TypeError):
        run("echo hi")
    with pytest.raises(RMError, match="command not found"):
        run(["/nonexistent/cmd"])
    with pytest.raises(RMError, match="no answer within"):
        run(["sleep", "5"], timeout=0.2)
    assert run(["false"]).returncode == 1
