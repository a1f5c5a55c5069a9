"""showq, showres and checkjob during a real mauid run, checked against squeue.

Four long jobs fill the four nodes; a wide job (2 CPUs on every node) then waits with a
priority reservation for the end of the last of them, and a small job waits behind it.
The cluster holds still (every job enters Slurm held, only mauid releases them, and
nothing fits), so what the commands read from the store must be what squeue says: the
running jobs on their nodes, the pending ones, the wide job's reservation.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from maui_py.adapters.slurm import hostlist
from maui_py.cli.main import run_single

from .harness import MauidProcess, journal, wait_for, write_config

pytestmark = pytest.mark.slurm

CONFIG = """\
RESERVATIONDEPTH   1
BACKFILLPOLICY     FIRSTFIT
"""


def squeue(slurm) -> dict[str, tuple[str, list[str]]]:
    out = slurm.run(["squeue", "-h", "-o", "%i|%T|%N"]).stdout
    rows = [line.split("|") for line in out.splitlines() if line]
    return {jid: (state, hostlist.expand(nodes) if nodes else []) for jid, state, nodes in rows}


def command(capsys, cfg: Path, name: str, *argv: str):
    rc = run_single(name, [*argv, "-c" if name != "showbf" else "--config", str(cfg)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out, err


def as_json(capsys, cfg, name, *argv):
    return json.loads(command(capsys, cfg, name, *argv, "--json")[0])


def test_showq_showres_checkjob_agree_with_squeue_during_a_run(slurm, tmp_path, capsys):
    cfg = write_config(tmp_path, slurm, CONFIG)
    longs = [slurm.submit(["-N", "1", "-n", "8", "-t", "5"], script="sleep 120") for _ in range(4)]
    mauid = MauidProcess(cfg)
    try:
        wait_for(lambda: all(squeue(slurm).get(j, ("",))[0] == "RUNNING" for j in longs), 30, "the long jobs running")
        wide = slurm.submit(["-N", "4", "--ntasks-per-node=2", "-t", "2"], script="sleep 5")
        # One small job only: this module submits 6 jobs, so that the next module's three get
        # one-digit ids (run_cycle orders jobs of equal priority submitted in the same second
        # by id as text: "10" before "8", which test_crash_slurm's wide job must not be).
        small = [slurm.submit(["-n", "1", "-t", "1"], script="sleep 5")]
        wait_for(lambda: journal(tmp_path, job_id=wide, events=("reserve",)), 30, "the wide job's reservation")

        def mismatch():
            sq = squeue(slurm)
            q = as_json(capsys, cfg, "showq")["data"]
            active = {j["id"]: sorted(j["nodes"]) for j in q["active"]}
            running = {jid: sorted(nodes) for jid, (state, nodes) in sq.items() if state == "RUNNING"}
            pending = {jid for jid, (state, _n) in sq.items() if state == "PENDING"}
            waiting = {j["id"] for j in q["idle"] + q["blocked"]}
            if active != running or waiting != pending:
                return f"showq {active} / {waiting} != squeue {running} / {pending}"
            return None
        wait_for(lambda: mismatch() is None, 10, "showq to agree with squeue", period=0.5)
        sq = squeue(slurm)
        assert set(sq) == {*longs, wide, *small}
        q = as_json(capsys, cfg, "showq")["data"]
        assert [j["id"] for j in q["idle"]][0] == wide            # first in the eligible queue
        assert q["busy_procs"] == q["up_procs"] == 32 and q["active_nodes"] == 4

        res = {r["name"]: r for r in as_json(capsys, cfg, "showres")["data"]["reservations"]}
        assert {j for j in res if res[j]["state"] == "R"} == set(longs)
        for j in longs:
            assert [n for n, _p, _t in res[j]["allocation"]] == sq[j][1]
        r = res[wide]
        assert r["state"] == "I" and (r["nodes"], r["procs"]) == (4, 8)
        ends = sorted(res[j]["end"] for j in longs)
        assert r["start"] == ends[-1]                             # when every node has 2 CPUs free
        assert set(small).isdisjoint(res)                          # EASY: one reservation only

        out, err = command(capsys, cfg, "checkjob", longs[0])
        assert "State: Running\n" in out and f"Allocated Nodes:\n[{sq[longs[0]][1][0]}:8]\n" in out
        assert f"; mauid running, pid {mauid.proc.pid}" in err
        out, _err = command(capsys, cfg, "checkjob", wide)
        assert "State: Idle\n" in out and f"Reservation '{wide}' (" in out
        assert "job cannot run  (insufficient idle procs:  0 available)\n" in out

        # the installed script, as a user runs it
        script = Path(sys.executable).with_name("showq")
        p = subprocess.run([str(script), "-c", str(cfg)], capture_output=True, text=True, timeout=30)
        assert p.returncode == 0 and p.stdout.startswith("ACTIVE JOBS----")
        assert "     4 Active Jobs      32 of   32 Processors Active (100.00%)" in p.stdout
    finally:
        assert mauid.stop() == 0
    # stopped: the commands still read the last committed cycle, and say the daemon is gone
    _out, err = command(capsys, cfg, "showq")
    assert err.rstrip().endswith("mauid not running")
