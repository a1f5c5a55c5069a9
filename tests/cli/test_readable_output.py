"""What a person reads from the commands (issue 35 items 2 and 10, issue 34's terminal
point): instants as dates, never raw epoch seconds; the admin commands' -c/--config; no raw
control or bidirectional characters from a user's name reaching the terminal."""

from __future__ import annotations

import argparse
import importlib
import json
import re

import pytest

from maui_py.cfg import load_config
from maui_py.cli.main import run_single
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import ClusterSnapshot, Job, JobRequest, Node, Resources
from maui_py.store import Store

T = 1_700_000_000          # Tue Nov 14 22:13:20 2023 UTC
RAW_EPOCH = re.compile(r"\b1[67]\d{8}\b")


def write_store(home, jobs, config="DEFERTIME 1:00:00\nADMIN1 root\n"):
    (home / "maui.cfg").write_text(config)
    cfg = load_config(home / "maui.cfg")
    snap = ClusterSnapshot(T, (Node("n1", Resources.of(4)),), tuple(jobs))
    result = run_cycle(snap, cfg, SchedulerState())
    store = Store.open(home / "maui-py.db", clock=lambda: float(T + 1))
    store.save_cycle(result, snap, info={"config_path": str(home / "maui.cfg"), "rm": "fake", "pid": 0,
                                         "host": "test"})
    store.close(rollback_mode=True)
    return home / "maui-py.db"


def run(capsys, *argv):
    rc = run_single(argv[0], list(argv[1:]))
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_deferred_job_says_until_when_as_a_date(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    db = write_store(tmp_path, [Job("big", "alice", JobRequest(16), 600, T - 10)])
    rc, out, _err = run(capsys, "showq", "-b", "--store", str(db))
    assert rc == 0 and "deferred until Tue Nov 14 23:13:20: cannot run" in out, out
    rc, out, _err = run(capsys, "checkjob", "-v", "big", "--store", str(db))
    assert rc == 0 and "deferred until Tue Nov 14 23:13:20" in out and not RAW_EPOCH.search(out), out
    rc, out, _err = run(capsys, "showq", "-b", "--store", str(db), "--json")
    reason = json.loads(out)["data"]["blocked"][0]["reason"]
    assert not RAW_EPOCH.search(reason), reason


def test_setres_answer_gives_dates_and_a_duration():
    from maui_py.daemon import admin, handlers
    cfg = load_config_text("ADMIN1 root\n")
    snap = ClusterSnapshot(T, (Node("n1", Resources.of(4)),), ())
    ctx = admin.AdminContext(cfg, SchedulerState(), snap, {}, float(T))
    req = admin.AdminRequest(1, "setres", {"name": "maint", "start": T, "end": T + 1800, "hosts": ["n1"]}, "root",
                             float(T))
    answer = handlers.setres(req, ctx)
    assert not RAW_EPOCH.search(answer), answer
    assert answer.endswith("(00:30:00)") and " from " in answer and " to " in answer


def load_config_text(text):
    from maui_py.cfg import parse_config
    return parse_config(text)


@pytest.mark.parametrize("name", ["sethold", "releasehold", "setspri", "runjob", "setres", "releaseres"])
def test_the_admin_commands_take_c_for_the_configuration(name):
    module = importlib.import_module(f"maui_py.cli.{name}")
    parser = argparse.ArgumentParser(prog=name, add_help=False)
    module.add_arguments(parser)
    words = {"sethold": ["3"], "releasehold": ["3"], "setspri": ["5", "3"], "runjob": ["3"],
             "setres": ["n1"], "releaseres": ["maint"]}[name]
    args = parser.parse_args(["-c", "site.cfg", *words])
    assert args.config == "site.cfg"


def test_setres_takes_its_classes_by_a_long_name(capsys):
    from maui_py.cli import setres
    parser = argparse.ArgumentParser(prog="setres")
    setres.add_arguments(parser)
    args = parser.parse_args(["--classes", "batch:debug", "-c", "site.cfg", "n1"])
    assert (args.classes, args.config) == ("batch:debug", "site.cfg")
    assert "--classes" in parser.format_help() and "Maui's setres -c" in parser.format_help()


EVIL = "ev\u202eli\x1b[2Jx\u200bz\u2028w"


def test_control_and_bidi_characters_in_names_never_reach_the_terminal(tmp_path, capsys, monkeypatch):
    """Issue 34: a user picks a name with a right-to-left override or an escape sequence."""
    monkeypatch.setenv("TZ", "UTC")
    db = write_store(tmp_path, [Job("j1\x1b]0;t\x07", EVIL, JobRequest(2), 600, T - 10),
                                Job("j2", EVIL, JobRequest(16), 600, T - 10)])
    texts = []
    for argv in (("showq",), ("showq", "-i"), ("showq", "-b"), ("showq", "-r"), ("checkjob", "-v", "j2")):
        rc, out, err = run(capsys, *argv, "--store", str(db))
        assert rc == 0, err
        texts.append(out + err)
    rc, out, err = run(capsys, "checkjob", "no\u202ejob", "--store", str(db))
    texts.append(out + err)
    text = "".join(texts)
    for c in "\u202e\x1b\u200b\u2028\x07":
        assert c not in text, repr(c)
    assert "ev\\u202eli\\x1b[2Jx\\u200bz\\u2028w" in text       # shown, escaped, not dropped
    rc, out, _err = run(capsys, "showq", "--store", str(db), "--json")
    q = json.loads(out)["data"]
    assert {j["user"] for j in q["active"] + q["blocked"]} == {EVIL}    # JSON keeps the name, escaped by JSON
    assert "\u202e" not in out
