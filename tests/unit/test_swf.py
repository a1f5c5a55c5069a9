import dataclasses
import gzip
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.model import Resources
from maui_py.sim.swf import (CleaningReport, SwfFormatWarning, SwfHeader, SwfRecord, clean,
                             read_swf, to_sim_jobs, write_swf)
from tests.traces import trace_path

SAMPLE = """\
; Version: 2.2
; Computer: IBM SP2
; Acknowledge: Dan Dwyer and Steve Hotovy
; Information: http://www.tc.cornell.edu/
;              http://www.cs.huji.ac.il/labs/parallel/workload/
; UnixStartTime: 835823160
; MaxNodes: 338 (batch partition; 512 total)
; MaxProcs: 338
; Queue:  1 DSI
; Queue:  2 astro
    1        0 588530    937  306 142.00    -1   -1  35100    -1  1  97  -1 307  3 -1 -1 -1
    2   164472 356587     75   17   2.00    -1   -1    300    -1  1  81  -1 195  3 -1 -1 -1

this line is not a job
    3   197154 459987  35268  306  32792    -1   -1  35100    -1  0  97  -1 307  3 -1 -1
    4   197155      0    nan    4     -1    -1    4    600    -1  1  12  12  -1 -1 -1 -1 -1
    5   197160      0   60.0    4     -1    -1    4    600  2048  1  12  12  -1 -1 -1 -1 -1
; Note: a comment between jobs
"""


def rec(job_id=1, submit=0, runtime=100, alloc=4, req_procs=4, req_time=200, **kw):
    base = dict(job_id=job_id, submit=submit, wait=-1, runtime=runtime, alloc_procs=alloc,
                avg_cpu=-1.0, used_mem=-1.0, req_procs=req_procs, req_time=req_time,
                req_mem=-1, status=1, user=3, group=7, executable=-1, queue=2,
                partition=-1, preceding_job=-1, think_time=-1)
    base.update(kw)
    return SwfRecord(**base)


def read_sample():
    with pytest.warns(SwfFormatWarning) as caught:
        header, records = read_swf(io.StringIO(SAMPLE))
    return header, records, [str(w.message) for w in caught]


def test_read_parses_jobs_and_skips_malformed_lines_with_their_line_numbers():
    header, records, messages = read_sample()
    assert [r.job_id for r in records] == [1, 2, 5]
    assert header.malformed == 3
    assert len(messages) == 3
    assert messages[0].startswith("<stream>:14:")
    assert ":15:" in messages[1] and "(17 fields;" in messages[1]
    assert ":16:" in messages[2]  # nan is not a number of seconds
    first = records[0]
    assert (first.submit, first.wait, first.runtime, first.alloc_procs) == (0, 588530, 937, 306)
    assert first.avg_cpu == 142.0 and isinstance(first.avg_cpu, float)
    assert (first.req_procs, first.req_time, first.user, first.executable, first.queue) == \
        (-1, 35100, 97, 307, 3)
    assert records[2].runtime == 60 and isinstance(records[2].runtime, int)


def test_header_fields_comments_and_numbers():
    header, _, _ = read_sample()
    assert header.max_procs == 338 and header.max_nodes == 338
    assert header.unix_start_time == 835823160
    assert header.get("Acknowledge") == "Dan Dwyer and Steve Hotovy"
    assert header.fields["Queue"] == "1 DSI\n2 astro"
    assert header.fields["Note"] == "a comment between jobs"
    assert header.comments[4] == ";              http://www.cs.huji.ac.il/labs/parallel/workload/"
    assert len(header.comments) == 11
    assert SwfHeader().max_procs is None
    built = SwfHeader.build([("Note", "first\nsecond"), ("MaxProcs", 8)])
    assert built.comments == ("; Note: first", "; Note: second", "; MaxProcs: 8")
    assert built.fields == {"Note": "first\nsecond", "MaxProcs": "8"}


def test_fast_records_are_ordinary_frozen_records():
    _, records, _ = read_sample()
    r = records[0]
    assert type(r) is SwfRecord
    assert r == dataclasses.replace(r) and hash(r) == hash(dataclasses.replace(r))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.runtime = 1


def test_gzip_is_detected_by_magic_bytes_not_suffix(tmp_path):
    gz_without_suffix = tmp_path / "trace.swf"
    gz_without_suffix.write_bytes(gzip.compress(SAMPLE.encode()))
    plain_with_suffix = tmp_path / "plain.swf.gz"
    plain_with_suffix.write_text(SAMPLE)
    with pytest.warns(SwfFormatWarning) as caught:
        h1, r1 = read_swf(gz_without_suffix)
    assert str(caught[0].message).startswith(f"{gz_without_suffix}:14:")
    with pytest.warns(SwfFormatWarning):
        h2, r2 = read_swf(str(plain_with_suffix))
    with pytest.warns(SwfFormatWarning):
        h3, r3 = read_swf(io.BytesIO(gzip.compress(SAMPLE.encode())))
    assert r1 == r2 == r3 and len(r1) == 3
    assert h1.fields == h2.fields == h3.fields


def test_many_malformed_lines_warn_a_bounded_number_of_times():
    text = "junk\n" * 50 + " ".join(["1"] * 18) + "\n"
    with pytest.warns(SwfFormatWarning) as caught:
        header, records = read_swf(io.StringIO(text))
    assert len(records) == 1 and header.malformed == 50
    assert len(caught) == 21 and "30 more" in str(caught[-1].message)


def test_clean_applies_each_rule_and_counts_it():
    records = [
        rec(1, submit=50),                                   # kept
        rec(2, alloc=-1, req_procs=-1),                      # no processors
        rec(3, alloc=0, req_procs=8),                        # requested procs used
        rec(4, alloc=200, req_procs=4),                      # too wide (alloc wins)
        rec(5, runtime=0),                                   # no runtime
        rec(6, runtime=-1),                                  # no runtime
        rec(7, req_time=-1),                                 # no estimate
        rec(8, submit=10, runtime=500, req_time=300),        # clipped
        rec(9, submit=10, alloc=-1, req_procs=128),          # exactly the machine: kept
    ]
    kept, report = clean(records, machine_procs=128)
    assert [r.job_id for r in kept] == [3, 8, 9, 1]
    assert report == CleaningReport(machine_procs=128, total=9, kept=4, no_procs=1,
                                    too_wide=1, no_runtime=2, no_estimate=1, clipped=1)
    assert report.total == report.kept + report.dropped
    by_id = {r.job_id: r for r in kept}
    assert by_id[8].runtime == 300 and by_id[8].req_time == 300
    assert by_id[3].alloc_procs == 8 and by_id[9].alloc_procs == 128
    assert by_id[1] is records[0]
    text = report.summary()
    assert "9 jobs, 4 kept, 5 dropped" in text and "clipped to the requested time: 1" in text


def test_clean_sorts_by_submit_then_job_id():
    kept, _ = clean([rec(5, submit=20), rec(3, submit=20), rec(9, submit=1)], 16)
    assert [r.job_id for r in kept] == [9, 3, 5]


def test_clean_can_keep_jobs_without_requested_time():
    kept, report = clean([rec(1, req_time=-1, runtime=70), rec(2)], 16, keep_no_estimate=True)
    assert [r.req_time for r in kept] == [70, 200]
    assert report.estimate_from_runtime == 1 and report.no_estimate == 0
    assert "set to the runtime: 1" in report.summary()


def test_to_sim_jobs_maps_fields():
    records = [rec(42, submit=1000, runtime=90, alloc=6, req_time=3600, req_mem=1025,
                   user=12, group=3, queue=4),
               rec(43, alloc=-1, req_procs=2, queue=-1, req_mem=-1)]
    first, second = to_sim_jobs(records)
    job = first.job
    assert first.runtime == 90
    assert (job.id, job.user, job.group, job.class_, job.qos) == \
        ("42", "user12", "group3", "queue4", "")
    assert job.request.tasks == 6 and job.request.per_task == Resources(procs=1, mem=2)
    assert (job.request.nodes, job.request.tasks_per_node) == (0, 0)
    assert (job.wallclock, job.submit_time, job.procs) == (3600, 1000, 6)
    assert second.job.class_ == "" and second.job.procs == 2
    assert second.job.request.per_task == Resources(procs=1)
    assert to_sim_jobs(records, procs_per_node=8) == [first, second]


def test_to_sim_jobs_rejects_what_clean_drops():
    with pytest.raises(ValueError, match="SWF job 7"):
        to_sim_jobs([rec(7, req_time=-1)])
    with pytest.raises(ValueError, match="procs_per_node"):
        to_sim_jobs([], procs_per_node=0)


ints = st.integers(min_value=-1, max_value=2**40)
reals = st.floats(allow_nan=False, allow_infinity=False)
records_strategy = st.builds(
    SwfRecord, ints, ints, ints, ints, ints, reals, reals, ints, ints, ints, ints, ints, ints,
    ints, ints, ints, ints, ints)


@settings(max_examples=60, deadline=None)
@given(st.lists(records_strategy, max_size=20))
def test_write_then_read_gives_the_same_records(records):
    header = SwfHeader.build({"MaxProcs": 64, "Acknowledge": "test site"})
    buf = io.StringIO()
    write_swf(records, buf, header)
    got_header, got = read_swf(io.StringIO(buf.getvalue()))
    assert got == records
    assert got_header.comments == header.comments and got_header.malformed == 0


def test_write_gzip_path_round_trip(tmp_path):
    records = [rec(1, avg_cpu=12.25), rec(2, used_mem=0.1)]
    path = tmp_path / "out.swf.gz"
    write_swf(records, path, SwfHeader.build([("MaxProcs", 16)]))
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    header, got = read_swf(path)
    assert got == records and header.max_procs == 16
    binary = io.BytesIO()
    write_swf(records, binary)
    assert read_swf(io.BytesIO(binary.getvalue()))[1] == records


@pytest.mark.trace
def test_kth_trace_cleaning_accounts_for_every_job():
    header, records = read_swf(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"))
    assert header.max_procs == 100 and header.malformed == 0 and len(records) == 28476
    assert "Lars Malinowsky" in header.fields["Acknowledge"]
    kept, report = clean(records, header.max_procs)
    assert report.total == len(records) == report.kept + report.dropped
    assert report.kept == len(kept) == 28467
    kept_ids = {r.job_id for r in kept}
    dropped = [r for r in records if r.job_id not in kept_ids]
    assert len(dropped) == report.dropped
    assert all(r.procs <= 0 or r.procs > 100 or r.runtime <= 0 or r.req_time <= 0
               for r in dropped)
    assert all(1 <= r.alloc_procs <= 100 and 0 < r.runtime <= r.req_time for r in kept)
    assert [(r.submit, r.job_id) for r in kept] == sorted((r.submit, r.job_id) for r in kept)
    over = sum(1 for r in records if r.job_id in kept_ids and r.runtime > r.req_time)
    assert report.clipped == over > 0


@pytest.mark.trace
def test_sdsc_and_ctc_cleaning_match_the_readme():
    header, records = read_swf(trace_path("SDSC-SP2-1998-4.2-cln.swf.gz"))
    _, report = clean(records, header.max_procs)
    assert header.max_procs == 128 and len(records) == 59715
    assert report.no_runtime >= 5671  # the README's jobs with runtime -1, plus zero runtimes
    header, records = read_swf(trace_path("CTC-SP2-1996-3.1-cln.swf.gz"))
    assert header.max_procs == 338 and all(r.req_procs == -1 for r in records)
    kept, report = clean(records, header.max_procs)
    assert report.no_procs == 0 and report.kept > 77000
    assert len(to_sim_jobs(kept[:1000])) == 1000


def test_missing_trace_skips_locally_and_fails_in_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        trace_path("no-such-trace.swf.gz")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no-such-trace.swf.gz not found"):
        trace_path("no-such-trace.swf.gz")


def test_estimates_max_raises_the_estimate_to_the_recorded_runtime_only_for_overruns():
    from maui_py.sim.swf import SwfRecord, clean
    def rec(job_id, runtime, req_time):
        return SwfRecord(job_id, 0, 0, runtime, 4, -1, -1, 4, req_time, -1, 1, 1, 1, -1, 1, 1, -1, -1)
    recs = [rec(1, 500, 300), rec(2, 100, 300)]
    a, rep_a = clean(recs, 8)
    b, rep_b = clean(recs, 8, estimates="max")
    assert [(r.runtime, r.req_time) for r in a] == [(300, 300), (100, 300)]
    assert [(r.runtime, r.req_time) for r in b] == [(300, 500), (100, 300)]
    assert rep_a.clipped == rep_b.clipped == 1
    import pytest
    with pytest.raises(ValueError):
        clean(recs, 8, estimates="typo")
