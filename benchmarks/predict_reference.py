"""Independent oracle for EASY, EASY-SJBF, EASY++ and EASY with exact runtimes (issue 17).

Reproduces the definitions of the pyss-based simulator behind Gaussier, Glesser, Reis and
Trystram (SC'15, repository jad-darrous/predictsim); see /tmp/helpers/predict_findings.md.
Stdlib only, no maui_py. Processor counts only (one processor per node).
- Jobs: processors = requested (field 8), else allocated (field 5); jobs with processors <= 0 or
  > machine, runtime <= 0 or request <= 0 are dropped; runtime = min(runtime, request);
  estimate = request; machine = header MaxProcs.
- Events at one time: corrections, then submissions (file order), then ends (start order); each
  submission and each end runs one pass, as pyss does (a job whose expected end is now is free).
- EASY: FCFS head-of-queue starts, a reservation for the first blocked job at its shadow time,
  then candidates in queue order (SJBF: by estimate, ties in queue order) start if they fit now
  and end by the shadow time or fit in the extra processors.
- EASY++: estimate = mean (floored) of the user's last two runtimes among jobs ended before the
  submission, capped by the request (the request when fewer than two); a job that outlives it
  gets its request (no pass at that moment); backfill in SJBF order. Exact: estimate = runtime.
- Average bounded slowdown over all jobs: max(1, (wait + run) / max(run, 10)).
Usage: predict_reference.py TRACE... [--variant easy|sjbf|easypp|exact|all] [--all-traces]
       [--procs N] [--allocated] [--ends-first | --batched] [--out FILE]
"""

import argparse
import gzip
import heapq
import os
import sys
import time
from bisect import insort

TRACES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "traces")
PUBLISHED = {  # avgbsld in the predictsim metrics files: EASY, EASY-SJBF, EASY++, EASY exact
    "KTH-SP2": (92.5765, 69.4054, 62.8569, 71.7224),
    "CTC-SP2": (49.5713, 30.0411, 26.5338, 37.1654),
    "SDSC-SP2": (87.8703, 84.8889, 65.0636, 70.4779),
}
DEFAULT_TRACES = ("KTH-SP2-1996-2.1-cln", "CTC-SP2-1996-3.1-cln", "SDSC-SP2-1998-4.2-cln")
VARIANTS = ("easy", "sjbf", "easypp", "exact")
CORRECT, SUBMIT, END = 0, 1, 2          # event order at one time, as in pyss


def read_jobs(path, procs=None, allocated=False):
    """Cleaned jobs [(jid, submit, procs, run, req, user)] in file order, and the machine size.

    Processors: requested (field 8), else allocated (field 5), as the published runs did;
    allocated=True prefers field 5 (maui-py's cleaning). A malformed line is skipped with a
    warning naming it; a repeated job id is an error.
    """
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    raw, max_procs, seen = [], 0, set()
    with opener(path, "rt") as f:
        for n, line in enumerate(f, 1):
            t = line.split()
            if not t:
                continue
            if t[0].startswith(";"):
                if line.lstrip("; ").startswith("MaxProcs:"):
                    max_procs = int(line.split(":")[1].split()[0])
                continue
            try:
                jid, submit, run, alloc, asked, req, user = (
                    int(float(t[k])) for k in (0, 1, 3, 4, 7, 8, 11))
            except (IndexError, ValueError):
                print(f"warning: {path}:{n}: malformed SWF record skipped", file=sys.stderr)
                continue
            if jid in seen:
                raise SystemExit(f"{path}:{n}: job id {jid} repeated")
            seen.add(jid)
            first, second = (alloc, asked) if allocated else (asked, alloc)
            raw.append((jid, submit, first if first > 0 else second, run, req, user))
    size = procs or max_procs or max((r[2] for r in raw), default=0)
    jobs = [(j, s, p, min(r, q), q, u) for j, s, p, r, q, u in raw
            if 0 < p <= size and r > 0 and q > 0]
    return jobs, size


def simulate(jobs, size, variant, batched=False):
    """{jid: start} and EASY++ prediction figures for one variant. batched: at each time,
    corrections, then submissions (predicted), then ends (learned), then ONE pass (maui-py's
    and Maui's cycle)."""
    sjbf = variant in ("sjbf", "easypp")
    always_pass = variant == "easypp"    # EASY++ always runs a pass on a submission
    pred = {}                                   # jid -> current estimate
    initial, history, corrections = {}, {}, 0
    running, key, busy = [], {}, 0              # running: sorted (expected end, seq, procs, jid)
    queue, out, events, seq = [], {}, [], len(jobs)
    info = {j[0]: j for j in jobs}
    for i, j in enumerate(jobs):
        events.append((j[1], SUBMIT, i, j[0]))
    heapq.heapify(events)

    def free_at(now):
        f = size - busy
        for ee, _s, p, _j in running:
            if ee > now:
                break
            f += p
        return f

    def start(jid, now):
        nonlocal busy, seq
        _j, _s, p, run, _q, _u = info[jid]
        out[jid] = now
        busy += p
        seq += 1
        key[jid] = (now + pred[jid], seq, p, jid)
        insort(running, key[jid])
        heapq.heappush(events, (now + run, END, seq, jid))
        if pred[jid] < run:
            heapq.heappush(events, (now + pred[jid], CORRECT, seq, jid))

    def schedule(now):
        free = free_at(now)
        while queue and info[queue[0]][2] <= free:
            free -= info[queue[0]][2]
            start(queue.pop(0), now)
        if len(queue) < 2:
            return
        need, avail, shadow = info[queue[0]][2], free, None
        for ee, _s, p, _j in running:          # shadow: first expected end with room
            if ee <= now:
                continue
            if shadow is not None and ee > shadow:
                break
            avail += p
            if avail >= need:
                shadow = ee
        extra = avail - need
        tail = queue[1:]
        if sjbf:
            tail.sort(key=lambda jid: pred[jid])   # stable: ties keep queue order
        started = set()
        for jid in tail:
            p = info[jid][2]
            late = now + pred[jid] > shadow
            if p <= free and (not late or p <= extra):
                free -= p
                extra -= p if late else 0
                start(jid, now)
                started.add(jid)
        if started:
            queue[:] = [jid for jid in queue if jid not in started]

    def predict(jid):
        _j, _s, _p, run, req, user = info[jid]
        if variant == "exact":
            return run
        if variant == "easypp":
            last = history.get(user, ())
            return min(req, (last[0] + last[1]) // 2) if len(last) == 2 else req
        return req

    def apply(kind, jid):
        """One event's change of state; True when it would run a pass under pyss."""
        nonlocal busy, corrections
        if kind == CORRECT:                     # corrector "request": new end = start + request
            running.remove(key[jid])
            pred[jid] = info[jid][4]
            key[jid] = (out[jid] + pred[jid],) + key[jid][1:]
            insort(running, key[jid])
            corrections += 1
            return False
        if kind == SUBMIT:
            pred[jid] = initial[jid] = predict(jid)
            queue.append(jid)
            return always_pass or free_at(now) >= info[jid][2]
        running.remove(key[jid])
        busy -= info[jid][2]
        user = info[jid][5]
        history[user] = (history.get(user, ()) + (info[jid][3],))[-2:]
        return True

    while events:
        now = events[0][0]
        if batched:                             # corrections, submissions, ends, one pass
            batch = []
            while events and events[0][0] == now:
                batch.append(heapq.heappop(events))
            batch.sort(key=lambda e: (e[1] != CORRECT, e[1] != SUBMIT, e[2]))
            if [apply(kind, jid) for _t, kind, _s, jid in batch] and batch[-1][1] != CORRECT:
                schedule(now)
            continue
        _t, kind, _seq, jid = heapq.heappop(events)
        if apply(kind, jid):
            schedule(now)
    errors = [initial[j[0]] - j[3] for j in jobs]
    quality = {
        "mae_s": sum(abs(e) for e in errors) / max(len(errors), 1),
        "under": sum(e < 0 for e in errors) / max(len(errors), 1),
        "over": sum(e > 0 for e in errors) / max(len(errors), 1),
        "corrected": corrections,
    }
    return out, quality


def bsld(jobs, starts):
    total = sum(max(1.0, (starts[j] - s + r) / max(r, 10)) for j, s, _p, r, _q, _u in jobs)
    return total / max(len(jobs), 1)


def published_for(trace):
    name = os.path.basename(trace)
    return next((v for k, v in PUBLISHED.items() if name.startswith(k)), None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="*", help="SWF files (plain or .gz)")
    ap.add_argument("--variant", choices=VARIANTS + ("all",), default="all")
    ap.add_argument("--all-traces", action="store_true", help="KTH, CTC and SDSC from ../shared")
    ap.add_argument("--procs", type=int, help="processors (default: header MaxProcs)")
    ap.add_argument("--allocated", action="store_true",
                    help="processors = allocated (field 5) first, as maui-py cleans")
    ap.add_argument("--out", help="write 'job_id start' lines (one trace, one variant)")
    ap.add_argument("--ends-first", action="store_true",
                    help="per-event passes, but ends before submissions at one time")
    ap.add_argument("--batched", action="store_true",
                    help="submissions, then ends, then one pass per time (maui-py's cycle)")
    args = ap.parse_args()
    if args.ends_first:
        global SUBMIT, END
        SUBMIT, END = END, SUBMIT
    traces = list(args.traces)
    if args.all_traces:
        traces += [os.path.join(TRACES, n + ".swf.gz") for n in DEFAULT_TRACES]
    if not traces:
        ap.error("give a TRACE or --all-traces")
    variants = VARIANTS if args.variant == "all" else (args.variant,)
    if args.out and (len(traces) > 1 or len(variants) > 1):
        ap.error("--out needs one trace and one --variant")
    rows = []
    for trace in traces:
        jobs, size = read_jobs(trace, args.procs, args.allocated)
        for v in variants:
            c0 = time.process_time()
            starts, q = simulate(jobs, size, v, args.batched)
            cpu = time.process_time() - c0
            b = bsld(jobs, starts)
            line = (f"{os.path.basename(trace)}  {v:6s}  procs {size}  jobs {len(jobs)}  "
                    f"bsld {b:.4f}  cpu_s {cpu:.1f}")
            if v == "easypp":
                line += (f"  mae_s {q['mae_s']:.0f}  under {q['under']:.3f}  "
                         f"over {q['over']:.3f}  corrected {q['corrected']}")
            print(line, flush=True)
            rows.append((trace, v, b))
            if args.out:
                with open(args.out, "w") as f:
                    f.writelines(f"{jid} {st}\n" for jid, st in sorted(starts.items()))
    if len(rows) > 1:
        print(f"\n{'trace':22s} {'variant':7s} {'bsld':>8s} {'published':>9s} {'diff %':>7s}")
        for trace, v, b in rows:
            pub = published_for(trace)
            ref = pub[VARIANTS.index(v)] if pub else None
            name = os.path.basename(trace).split(".swf")[0][:22]
            tail = f"{ref:9.2f} {100 * (b - ref) / ref:+7.2f}" if ref else f"{'-':>9} {'-':>7}"
            print(f"{name:22s} {v:7s} {b:8.2f} {tail}")

if __name__ == "__main__":
    main()
