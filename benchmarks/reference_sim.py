"""An independent EASY / conservative backfilling simulator over processor counts only.

The oracle and speed floor for maui-py's simulator (issue 12); stdlib only, no maui_py.
Input: a cleaned SWF trace (plain or .gz). At each event time: all ends, then all arrivals,
then ONE pass (FCFS: submit time, then job id). A job runs min(runtime, requested time);
expected ends use the requested time. Usage: reference_sim.py TRACE [--policy easy|conservative]
[--procs N] [--out FILE]
"""

import argparse
import gzip
import heapq
import os
import time
from bisect import bisect_left, insort


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


def conservative_pass(now, queue, free, running, start):
    """Each queued job in order: earliest fit in the free-processor profile, reserved."""
    times, frees = [now], [free]              # step function: frees[i] on [times[i], next)
    for ee, _jid, p in running:
        if ee > times[-1]:
            times.append(ee), frees.append(frees[-1])
        frees[-1] += p
    left = []
    for qi, job in enumerate(queue):
        if frees[0] == 0:                     # nothing else can start now
            left += queue[qi:]
            break
        p, d = job[2], job[4]
        i, n = 0, len(times)
        while True:                           # earliest i where p fits for d seconds
            while frees[i] < p:
                i += 1
            s, j = times[i], i + 1
            while j < n and times[j] < s + d and frees[j] >= p:
                j += 1
            if j == n or times[j] >= s + d:
                break
            i = j
        e = s + d
        j = bisect_left(times, e)
        if j == n or times[j] != e:           # breakpoint at the reservation's end
            times.insert(j, e), frees.insert(j, frees[j - 1])
        for k in range(i, j):
            frees[k] -= p
        start(job) if s == now else left.append(job)
    queue[:] = left


def simulate(jobs, procs, policy):
    """{id: (start, end)} of every job."""
    passf = easy_pass if policy == "easy" else conservative_pass
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
            passf(now, queue, free, running, start)
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
