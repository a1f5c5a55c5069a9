"""Bad input from the resource manager: the seeded campaign (thousands of mutated recorded
outputs through parse -> check -> cycle -> store) and the cases the admin's report named."""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import pytest

from maui_py.adapters.slurm import hostlist
from maui_py.adapters.slurm.parse import (parse_scontrol_jobs, parse_sinfo_json,
                                          parse_squeue_json)
from maui_py.adapters.torque.parse import parse_pbsnodes, parse_qstat
from maui_py.adapters.torque.values import size_mb
from maui_py.model import hostlist as model_hostlist
from maui_py.rm import RecordWarning
from tests.opcount import calls

from . import campaign

DATA = Path(__file__).resolve().parent.parent / "adapters" / "data"
CASES = 3000


def test_the_campaign_ends_every_case_cleanly_quickly_and_names_every_skipped_record():
    t0 = time.process_time()
    rows = campaign.run(CASES, campaign.SEED)
    failures = [f for r in rows.values() for f in r.failures]
    assert failures == [], "\n".join(failures[:20])
    assert sum(r.cases for r in rows.values()) == CASES
    assert max(r.slowest for r in rows.values()) <= campaign.HANG_SECONDS
    assert all(r.clean > 0 for r in rows.values()), campaign.table(rows)
    assert time.process_time() - t0 < 120


def squeue_doc() -> dict:
    return json.loads((DATA / "slurm" / "squeue.json").read_text())


def first_job_with(doc: dict, **fields) -> dict:
    doc["jobs"][0].update(fields)
    return doc


@pytest.mark.parametrize("field, value", [
    ("time_limit", 10 ** 18), ("time_limit", -1), ("submit_time", 1e999),
    ("cpus", 10 ** 400), ("memory_per_cpu", 1e999), ("nodes", "n[0-99999999]"),
])
def test_an_impossible_slurm_job_field_skips_that_record_with_a_warning(field, value):
    doc = first_job_with(squeue_doc(), **{field: value})
    bad_id = doc["jobs"][0]["job_id"]
    with pytest.warns(RecordWarning) as caught:
        got = parse_squeue_json(json.dumps(doc))
    assert str(bad_id) not in {j.id.split("_")[0] for j in got.jobs}
    assert len(got.jobs) >= len(doc["jobs"]) - 1
    assert any(f"job_id={bad_id}" in str(w.message) for w in caught)


def test_an_array_spec_naming_no_task_is_skipped_with_a_warning():
    line = ("JobId=90 ArrayJobId=90 ArrayTaskId=5-1 JobName=a UserId=u(1) GroupId=g(1) "
            "Priority=1 Account=a QOS=normal JobState=PENDING Reason=None TimeLimit=00:10:00 "
            "SubmitTime=2026-11-21T15:58:50 NumNodes=1 NumCPUs=1 NumTasks=1")
    with pytest.warns(RecordWarning, match="names no task"):
        got = parse_scontrol_jobs(line + "\n" + line.replace("5-1", "1-2").replace("=90", "=91"))
    assert sorted(j.id for j in got.jobs) == ["91_1", "91_2"]


def test_a_hostlist_bomb_is_refused_before_it_is_expanded(monkeypatch):
    expanded = []
    real = model_hostlist._expand_one
    monkeypatch.setattr(model_hostlist, "_expand_one", lambda *a: expanded.append(a) or real(*a))
    for expr in ("n[0-99999999]", "a[1-1000]b[1-1000]", "n" + "[1-2]" * 40):
        with pytest.raises(hostlist.HostlistError, match="more than"):
            hostlist.expand(expr)
    assert expanded == []
    assert len(hostlist.expand("n[1-100000]")) == hostlist.MAX_NAMES


def test_deep_json_nesting_is_a_clean_refusal():
    with pytest.raises(ValueError, match="not JSON"):
        parse_sinfo_json('{"nodes": ' + "[" * 100_000 + "]" * 100_000 + "}")


def test_a_400_digit_torque_mem_skips_the_job_and_the_fallback_reader_is_linear():
    text = (DATA / "torque" / "torque-qstat-f-x.xml").read_text()
    bad = text.replace("<mem>4gb", "<mem>" + "9" * 400 + "gb", 1)
    assert bad != text
    with pytest.raises(ValueError, match="digits"):
        size_mb("9" * 400 + "gb")
    with pytest.warns(RecordWarning):
        got = parse_qstat(bad, now=campaign.NOW)
    assert 0 < len(got) < len(parse_qstat(text, now=campaign.NOW))
    with pytest.warns(RecordWarning, match="never closed"):
        parse_pbsnodes("<Data>" + "<Node>" * 20_000 + "</Data>")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecordWarning)
        parse_pbsnodes("<Data>" + "<Node>" * 2_000 + "</Data>")       # warm caches (re, imports)
        small = calls(parse_pbsnodes, "<Data>" + "<Node>" * 2_000 + "</Data>")
        large = calls(parse_pbsnodes, "<Data>" + "<Node>" * 20_000 + "</Data>")
    # a fixed number of str.find calls however many records are left open (a loop over them
    # would add 18,000 calls or more): linear in the text (benchmarks/parse_scaling.py times it)
    assert large <= small + 1_000, (small, large)
