"""An independent EASY / conservative backfilling simulator over processor counts only.

The oracle and speed floor for maui-py's simulator (issues 12, 32); stdlib only, no maui_py.
Input: a cleaned SWF trace (plain or .gz): processors allocated, else requested; a job runs
min(runtime, requested time); expected ends use the requested time; FCFS (submit, job id).
EASY: at each event time all ends, then all arrivals, then ONE pass.
Conservative by its definition (Mu'alem and Feitelson 2001, as the simulator pyss runs it):
an arrival is reserved at its earliest start with every reservation held; each end (early or
not) frees its unused tail, then compresses: each waiting job in submit order is taken out
and put back at its earliest start, the others held, so never later. At one time, as pyss:
arrivals, then each end (start order) with its compression, then the starts. Unlike pyss,
processors come from the allocated field and malformed jobs are dropped (the usual cleaning);
given the same jobs both give every job the same start. BSLD: mean of max(1, (wait + run) /
max(run, 10)), as pyss. Usage: reference_sim.py TRACE [--policy easy|conservative] [--procs N]
[--out FILE]
"""

import argparse
import gzip
import heapq
import os
import time
from bisect import bisect_left, bisect_right, insort
from itertools import count


def read_jobs(path):
    """[(submit, id, procs, run, req)] sorted, and the header's MaxProcs (or 0)."""
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    jobs, max_procs = [], 0
    with opener(path, "rt") as f:
        for line in f:
            t = line.replace(";", "; ", 1).split()
            if t and t[0] == ";":
                max_procs = int(t[2]) if t[1:2] == ["MaxProcs:"] else max_procs
            elif t:
                jid, submit, run, alloc, reqp, req = (int(t[k]) for k in (0, 1, 3, 4, 7, 8))
                jobs.append((submit, jid, alloc if alloc > 0 else reqp, min(run, req), req))
    return sorted(jobs), max_procs


def easy_pass(now, queue, free, running, start):
    """Start the FCFS prefix that fits; reserve the first blocked job; backfill the rest."""
    i, q = 0, len(queue)
    while i < q and queue[i][2] <= free:
        free -= queue[i][2]
        start(queue[i])
        i += 1
    if i == q:
        return queue.clear()
    need, avail, k, n = queue[i][2], free, 0, len(running)
    while avail < need or (k < n and running[k][0] == running[k - 1][0]):
        avail += running[k][2]                # shadow: first expected end with room (and
        k += 1                                # every job that ends at that same time)
    shadow = running[k - 1][0]
    extra, left = avail - need, [queue[i]]
    for job in queue[i + 1:]:
        p, late = job[2], now + job[4] > shadow   # late: still running at shadow time
        if p <= free and (not late or p <= extra):
            extra, free = extra - p * late, free - p
            start(job)
        else:
            left.append(job)
    queue[:] = left


def cut(prof, t):
    """Index of the profile's breakpoint at t (t >= its first time), made if missing."""
    times, frees = prof
    j = bisect_left(times, t)
    if j == len(times) or times[j] != t:
        times.insert(j, t), frees.insert(j, frees[j - 1])
    return j


def hold(prof, s, e, p):
    """Take p processors on [s, e) (p < 0 gives them back); merge equal neighbours."""
    times, frees = prof
    i, j = cut(prof, s), cut(prof, e)
    for k in range(i, j):
        frees[k] -= p
    for k in (j, i):                          # j first: deleting it leaves i in place
        if 0 < k < len(times) and frees[k] == frees[k - 1]:
            del times[k], frees[k]


def earliest(prof, p, d):
    """First time from the profile's start where p processors stay free for d seconds."""
    times, frees = prof
    i, n = 0, len(times)
    while True:
        while frees[i] < p:
            i += 1
        s, j = times[i], i + 1
        while j < n and times[j] < s + d and frees[j] >= p:
            j += 1
        if j == n or times[j] >= s + d:
            return s
        i = j


def compress(prof, now, waiting, seq):
    """Each waiting job in submit order: taken out, put back at its earliest start with
    every other reservation held (never later, as its own place is still free)."""
    for w in waiting.values():
        s, _q, (_sub, _jid, p, _run, d) = w
        if s > now:                           # a job due to start now is left where it is
            hold(prof, s, s + d, -p)
            w[0] = earliest(prof, p, d)
            hold(prof, w[0], w[0] + d, p)
            assert w[0] <= s, "a reservation moved later"
            w[1] = next(seq) if w[0] != s else w[1]


def conservative(jobs, procs):
    """{id: (start, end)} under conservative backfilling (Mu'alem and Feitelson 2001).

    waiting: id -> [reserved start, seq, job] in submit order; ends: heap (end, seq, procs,
    reserved end). seq orders ties as pyss's event counter does: jobs due at one time start
    in the order their reservations were last made, and end in the order they started.
    """
    prof, waiting, ends, out, seq = ([0], [procs]), {}, [], {}, count()
    nxt, total = 0, len(jobs)
    jobs = jobs + [(float("inf"),)]           # sentinel: no more arrivals
    while nxt < total or ends or waiting:
        now = min([jobs[nxt][0]] + [e[0] for e in ends[:1]] + [w[0] for w in waiting.values()])
        k = bisect_right(prof[0], now) - 1    # forget the past
        del prof[0][:k], prof[1][:k]
        prof[0][0] = now
        while jobs[nxt][0] == now:            # arrivals: reserve, every reservation held
            job = jobs[nxt]
            s = earliest(prof, job[2], job[4])
            hold(prof, s, s + job[4], job[2])
            waiting[job[1]] = [s, next(seq), job]
            nxt += 1
        while ends and ends[0][0] == now:     # each end: its tail freed, then compression
            _e, _q, p, reserved_end = heapq.heappop(ends)
            if now < reserved_end:
                hold(prof, now, reserved_end, -p)
            compress(prof, now, waiting, seq)
        for _s, _q, job in sorted(w for w in waiting.values() if w[0] == now):
            del waiting[job[1]]               # the starts
            heapq.heappush(ends, (now + job[3], next(seq), job[2], now + job[4]))
            out[job[1]] = (now, now + job[3])
    return out


def simulate(jobs, procs, policy):
    """{id: (start, end)} of every job."""
    if policy == "conservative":
        return conservative(jobs, procs)
    ends, running, queue, out = [], [], [], {}   # ends: heap (end, id, procs, exp. end)
    free, nxt, total, now = procs, 0, len(jobs), 0
    jobs = jobs + [(float("inf"),)]           # sentinel: no more arrivals

    def start(job):
        nonlocal free
        (_submit, jid, p, run, req), free = job, free - job[2]
        heapq.heappush(ends, (now + run, jid, p, now + req))
        insort(running, (now + req, jid, p))
        out[jid] = (now, now + run)

    while nxt < total or ends:
        now = min(jobs[nxt][0], ends[0][0]) if ends else jobs[nxt][0]
        while ends and ends[0][0] == now:
            _e, jid, p, ee = heapq.heappop(ends)
            free += p
            del running[bisect_left(running, (ee, jid, p))]
        while jobs[nxt][0] == now:
            queue.append(jobs[nxt])
            nxt += 1
        if queue:
            easy_pass(now, queue, free, running, start)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--policy", choices=("easy", "conservative"), default="easy")
    ap.add_argument("--procs", type=int, help="processors (default: header MaxProcs)")
    ap.add_argument("--out", help="write 'job_id start end' lines here")
    args = ap.parse_args()
    jobs, max_procs = read_jobs(args.trace)
    procs = args.procs or max_procs or max(j[2] for j in jobs)
    jobs = [j for j in jobs if 0 < j[2] <= procs and j[3] > 0 and j[4] > 0]
    c0 = time.process_time()
    out = simulate(jobs, procs, args.policy)
    cpu = time.process_time() - c0
    st = open("/proc/self/status").read() if os.path.exists("/proc/self/status") else ""
    rss = int((st.split("VmHWM:")[1:] or ["0"])[0].split()[0]) / 1024  # peak RSS since exec
    span = max((e for _s, e in out.values()), default=0) - (jobs[0][0] if jobs else 0)
    waits, bslds, work, n = 0, 0, 0, len(jobs) or 1
    for submit, jid, p, run, _req in jobs:
        s, e = out[jid]
        waits, work = waits + s - submit, work + p * (e - s)
        bslds += max(1.0, (e - submit) / max(e - s, 10))
    if args.out:
        open(args.out, "w").writelines(f"{jid} {s} {e}\n" for jid, (s, e) in out.items())
    print(f"policy {args.policy}  procs {procs}  jobs {len(jobs)}  makespan {span}  "
          f"utilization {work / (procs * span) if span else 0:.4f}  "
          f"mean_wait {waits / n:.1f}  bsld {bslds / n:.4f}  cpu_s {cpu:.3f}  "
          f"peak_rss_mb {rss:.1f}")


if __name__ == "__main__":
    main()
