"""Start forecasts during a real mauid run (issue 36): showstart shows a range for a queued
job; after it starts, showstart --accuracy counts it.

Four jobs fill the four nodes for about 20 s; one more waits. mauid (FORECASTPOLICY ALL,
a forecast after every cycle) forecasts the waiting job in its worker process; showstart
then prints the range beside Maui's estimate and --json carries it. Once Slurm runs the
job, the store has its real start and the accuracy table counts one job.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from maui_py.cli.main import run_single
from maui_py.store import StoreReader
from maui_py.store.forecasts import forecast_of, tracked
from maui_py.store.reader import StoreError

from .harness import MauidProcess, wait_for, write_config

pytestmark = pytest.mark.slurm

CONFIG = """\
RESERVATIONDEPTH   1
BACKFILLPOLICY     FIRSTFIT
FORECASTPOLICY     ALL
FORECASTINTERVAL   0
FORECASTSAMPLES    5
"""


def _read(home: Path, what):
    path = home / "maui-py.db"
    if not path.exists():
        return None
    try:
        with StoreReader.open(path) as r:
            return what(r)
    except StoreError:
        return None


def command(capsys, cfg: Path, *argv: str) -> str:
    rc = run_single(argv[0], [*argv[1:], "-c", str(cfg)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


def test_showstart_shows_a_range_and_accuracy_counts_the_job_once_it_starts(slurm, tmp_path, capsys):
    cfg = write_config(tmp_path, slurm, CONFIG)
    longs = [slurm.submit(["-N", "1", "-n", "8", "-t", "2"], script="sleep 20") for _ in range(4)]
    mauid = MauidProcess(cfg)
    try:
        def running(jid):
            out = slurm.run(["squeue", "-h", "-j", jid, "-o", "%T"], check=False).stdout.strip()
            return out == "RUNNING"
        wait_for(lambda: all(running(j) for j in longs), 30, "the long jobs running")
        waiting = slurm.submit(["-N", "1", "-n", "8", "-t", "1"], script="sleep 2")
        wait_for(lambda: _read(tmp_path, lambda r: forecast_of(r, waiting)) is not None, 30,
                 "a stored forecast of the waiting job")
        assert not running(waiting)
        out = command(capsys, cfg, "showstart", waiting)
        assert "Earliest start in" in out and "Likely start in" in out and "(p10 to p90)" in out
        f = json.loads(command(capsys, cfg, "showstart", waiting, "--json"))["data"]["forecast"]
        assert f is not None and f["p10"] <= f["p50"] <= f["p90"] and f["samples"] == 5
        assert f["computed_at"] <= f["p10"]

        wait_for(lambda: running(waiting) or _started(tmp_path, waiting), 60, "the waiting job started")
        wait_for(lambda: _started(tmp_path, waiting), 30, "its real start in the store")
        acc = json.loads(command(capsys, cfg, "showstart", "--accuracy", "--json"))["data"]["accuracy"]
        everyone = acc["groups"][0]
        assert (everyone["group"], everyone["jobs"]) == ("all", 1)
        assert everyone["mae_p50"] is not None and everyone["coverage_80"] in (0.0, 1.0)
        assert "All jobs" in command(capsys, cfg, "showstart", "--accuracy")
    finally:
        assert mauid.stop() == 0


def _started(home: Path, jid: str) -> bool:
    rows = _read(home, lambda r: tracked(r, 0)) or []
    return any(t.job_id == jid and t.start is not None for t in rows)
