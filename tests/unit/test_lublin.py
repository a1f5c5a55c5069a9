import io
import math
import random
import statistics

import pytest

from maui_py.sim import lublin
from maui_py.sim.swf import clean, read_swf, to_sim_jobs, write_swf
from tests.traces import trace_path


@pytest.fixture(scope="module")
def batch128():
    return lublin.generate(4000, 128, seed=7)


def is_pow2(n):
    return n & (n - 1) == 0


def interarrivals(records):
    submits = [r.submit for r in records]
    return [b - a for a, b in zip(submits, submits[1:])]


def test_same_seed_same_output_other_seed_other_output(batch128):
    assert lublin.generate(4000, 128, seed=7) == batch128
    other = lublin.generate(4000, 128, seed=8)
    assert [r.runtime for r in other] != [r.runtime for r in batch128]
    assert [r.submit for r in other] != [r.submit for r in batch128]


def test_records_are_valid_swf_jobs_that_survive_cleaning(batch128):
    assert [r.job_id for r in batch128] == list(range(1, 4001))
    submits = [r.submit for r in batch128]
    assert submits == sorted(submits) and submits[0] >= 0
    for r in batch128:
        assert 1 <= r.alloc_procs == r.req_procs <= 128
        assert 1 <= r.runtime <= math.exp(lublin.TOO_MUCH_TIME)
        assert r.runtime <= r.req_time <= lublin.MAX_ESTIMATE
        assert (r.status, r.wait, r.user, r.queue) == (1, -1, -1, -1)
    kept, report = clean(batch128, 128)
    assert kept == batch128 and report.dropped == 0 and report.clipped == 0
    assert len(to_sim_jobs(kept)) == 4000


def test_batch_statistics_are_in_the_model_ranges(batch128):
    n = len(batch128)
    sizes = [r.alloc_procs for r in batch128]
    serial = sizes.count(1) / n
    assert abs(serial - lublin.BATCH.serial_prob) < 0.03
    pow2 = sum(map(is_pow2, sizes)) / n
    assert lublin.BATCH.serial_prob + lublin.BATCH.pow2_prob - 0.02 < pow2 < 0.99
    assert 10 < statistics.mean(sizes) < 20 and max(sizes) == 128
    runtimes = [r.runtime for r in batch128]
    assert 400 < statistics.median(runtimes) < 1500
    gaps = interarrivals(batch128)
    assert 100 < statistics.median(gaps) < 250
    assert 2000 < statistics.mean(gaps) < 6000


def test_arrivals_follow_the_daily_cycle(batch128):
    hours = [(r.submit % 86400) // 3600 for r in batch128]
    working = sum(1 for h in hours if 9 <= h < 18) / 9
    night = sum(1 for h in hours if h < 6) / 6
    assert working > 2 * night
    weights = lublin.bucket_weights(lublin.BATCH.anum, lublin.BATCH.bnum)
    assert len(weights) == 48 and math.isclose(sum(weights), 48)
    assert max(range(48), key=weights.__getitem__) // 2 in range(10, 17)


def test_start_time_shifts_submits_and_keeps_the_time_of_day():
    base = lublin.generate(200, 64, seed=3)
    shifted = lublin.generate(200, 64, seed=3, start_time=86400 * 10)
    assert [r.submit - 86400 * 10 for r in shifted] == [r.submit for r in base]


@pytest.mark.parametrize("procs", [1, 2, 3, 100, 1000])
def test_sizes_fit_any_machine(procs):
    sizes = [r.alloc_procs for r in lublin.generate(1500, procs, seed=procs)]
    assert min(sizes) == 1 and max(sizes) <= procs
    if procs >= 100:
        assert any(s > procs // 4 for s in sizes)


def test_invalid_arguments_are_rejected():
    with pytest.raises(ValueError):
        lublin.generate(10, 0, seed=1)
    with pytest.raises(ValueError):
        lublin.generate(-1, 8, seed=1)
    assert lublin.generate(0, 8, seed=1) == []


def test_gamma_cdf_matches_closed_forms():
    for x in (0.1, 0.9, 2.0, 7.5, 30.0):
        assert math.isclose(lublin.gamma_cdf(x, 1.0, 2.0), 1 - math.exp(-x / 2), rel_tol=1e-9)
        assert math.isclose(lublin.gamma_cdf(x, 2.0, 1.0), 1 - math.exp(-x) * (1 + x),
                            rel_tol=1e-9, abs_tol=1e-12)
    assert lublin.gamma_cdf(0, 3.0, 1.0) == 0.0


def test_estimates_are_round_values_or_near_exact_and_never_short():
    rng = random.Random(1)
    modes = {v for v, _ in lublin.ESTIMATE_MODES}
    runtimes = [int(math.exp(rng.uniform(0, lublin.TOO_MUCH_TIME))) for _ in range(3000)]
    estimates = [lublin.estimate(rng, r) for r in runtimes]
    assert all(e >= r for e, r in zip(estimates, runtimes))
    off_mode = [(e, r) for e, r in zip(estimates, runtimes) if e not in modes]
    assert 0.05 < len(off_mode) / len(runtimes) < 0.15
    assert all(e % 60 == 0 and e <= max(lublin.MAX_ESTIMATE, math.ceil(r * 1.1 / 60) * 60)
               for e, r in off_mode)
    assert sum(1 for e in estimates if e == lublin.MAX_ESTIMATE) > 100


def test_generated_workload_round_trips_through_swf(tmp_path):
    records = lublin.generate(300, 256, seed=11, start_time=1_000_000)
    header = lublin.header(300, 256, seed=11)
    path = tmp_path / "lublin.swf.gz"
    write_swf(records, path, header)
    got_header, got = read_swf(path)
    assert got == records
    assert got_header.max_procs == 256 and got_header.unix_start_time == 0
    assert "seed=11" in got_header.fields["Note"]
    buf = io.StringIO()
    write_swf(records, buf, header)
    assert read_swf(io.StringIO(buf.getvalue()))[1] == records


@pytest.mark.trace
def test_all_jobs_parameters_resemble_the_reference_generator_output():
    """lublin_256 was made by m_lublin99.c with its typeless parameters on 256 nodes."""
    _, reference = read_swf(trace_path("lublin_256.swf.gz"))
    ours = lublin.generate(len(reference), 256, seed=5, params=lublin.ALL_JOBS)

    def profile(records):
        sizes = [r.alloc_procs for r in records]
        return (sizes.count(1) / len(sizes), sum(map(is_pow2, sizes)) / len(sizes),
                statistics.mean(sizes), statistics.median(r.runtime for r in records),
                statistics.median(interarrivals(records)))

    ref, got = profile(reference), profile(ours)
    assert abs(got[0] - ref[0]) < 0.02 and abs(got[1] - ref[1]) < 0.02
    for mine, theirs in zip(got[2:], ref[2:]):
        assert theirs * 0.8 < mine < theirs * 1.25
