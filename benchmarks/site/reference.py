"""An independent multi-resource EASY backfilling replay: the site benchmark's oracle and floor.

No maui_py, no code shared with it (stdlib; the log is read by logread.py). Nodes have cores,
memory, GPUs, features and partitions; a job asks for NNodes distinct nodes of its partition
(and features), each holding an even share of its cores, memory and GPUs. FCFS by (arrival,
id). At each event time: every end, every arrival, then ONE pass: jobs start in queue order,
each on the first nodes (cluster order) that hold its share, until one cannot; that job (the
head) gets a reservation at the earliest time its share fits on NNodes nodes, counting every
running job as ending at start + time limit; the nodes are the first that fit then. Every
later job may start now on nodes that hold it now, if it ends (by its limit) before the
reservation, or if on each reserved node it uses only what the reservation leaves there.
Usage: reference.py SITE_DIR [--out FILE]   (SITE_DIR from generate.py; FILE: id,start,end,nodes)
"""

import argparse
import heapq
import time
from bisect import insort
from pathlib import Path

from logread import read_cluster, read_jobs


class Cluster:
    def __init__(self, nodes):
        self.nodes = nodes
        self.cores = [n["cores"] for n in nodes]
        self.mem = [n["mem"] for n in nodes]
        self.gpus = [n["gpus"] for n in nodes]
        self.parts = {}
        for i, n in enumerate(nodes):
            for p in n["parts"]:
                self.parts.setdefault(p, []).append(i)
        self.open = {p: list(ix) for p, ix in self.parts.items()}   # nodes with a free core

    def holds(self, i, j, cores, mem, gpus):
        return (cores[i] >= j["cpn"] and mem[i] >= j["mpn"] and gpus[i] >= j["gpn"]
                and j["feats"] <= self.nodes[i]["feats"])

    def place(self, j, extra=None):
        """The first NNodes nodes holding the job's share now (and within `extra` on the
        reserved nodes, when given), or None."""
        out = []
        for i in self.open.get(j["part"], ()):
            if self.holds(i, j, self.cores, self.mem, self.gpus):
                if extra is not None and i in extra and not (
                        extra[i][0] >= j["cpn"] and extra[i][1] >= j["mpn"] and extra[i][2] >= j["gpn"]):
                    continue
                out.append(i)
                if len(out) == j["nnodes"]:
                    return out
        return None

    def take(self, j, nodes, sign):
        for i in nodes:
            was = self.cores[i]
            self.cores[i] -= sign * j["cpn"]
            self.mem[i] -= sign * j["mpn"]
            self.gpus[i] -= sign * j["gpn"]
            if (was > 0) != (self.cores[i] > 0):
                for p in self.nodes[i]["parts"]:
                    if was > 0:
                        self.open[p].remove(i)
                    else:
                        insort(self.open[p], i)


def reservation(cl, head, running):
    """(shadow time, {reserved node: [cores, mem, gpus] left there by the reservation})."""
    part = cl.parts.get(head["part"], ())
    cores, mem, gpus = list(cl.cores), list(cl.mem), list(cl.gpus)
    fit = {i for i in part if cl.holds(i, head, cores, mem, gpus)}
    k, ends = 0, running.get(head["part"], [])
    while len(fit) < head["nnodes"]:
        if k == len(ends):
            raise ValueError(f"job {head['id']} fits no set of nodes")
        shadow = ends[k][0]
        while k < len(ends) and ends[k][0] == shadow:
            _e, _s, j, nodes = ends[k]
            k += 1
            for i in nodes:
                cores[i] += j["cpn"]
                mem[i] += j["mpn"]
                gpus[i] += j["gpn"]
                if cl.holds(i, head, cores, mem, gpus):
                    fit.add(i)
    reserved = sorted(fit)[: head["nnodes"]]
    return (ends[k - 1][0] if k else 0,
            {i: [cores[i] - head["cpn"], mem[i] - head["mpn"], gpus[i] - head["gpn"]] for i in reserved})


def simulate(nodes, jobs, on_pass=None):
    """{id: (start, end, nodes)} and the number of scheduling passes; on_pass(now), if
    given, is called before each pass (the benchmark times stretches with it)."""
    cl = Cluster(nodes)
    out, queue, heap, running, passes, seq = {}, [], [], {}, 0, 0
    k = 0
    while k < len(jobs) or heap or queue:
        now = min(jobs[k]["arrival"] if k < len(jobs) else float("inf"),
                  heap[0][0] if heap else float("inf"))
        while heap and heap[0][0] == now:
            _end, _s, j, ns, expect = heapq.heappop(heap)
            cl.take(j, ns, -1)
            running[j["part"]].remove(expect)
        while k < len(jobs) and jobs[k]["arrival"] == now:
            queue.append(jobs[k])
            k += 1
        passes += 1
        if on_pass:
            on_pass(now)
        waiting, shadow, extra, failed = [], None, None, set()
        for j in queue:
            long_ = shadow is not None and now + j["wall"] > shadow
            shape = (j["part"], j["cpn"], j["mpn"], j["gpn"], j["nnodes"], tuple(j["feats"]), long_)
            ns = None if shape in failed else cl.place(j, extra if long_ else None)
            if ns is None:
                failed.add(shape)
                waiting.append(j)
                if shadow is None:
                    shadow, extra = reservation(cl, j, running)
                continue
            cl.take(j, ns, 1)
            if long_:
                for i in ns:
                    if i in extra:
                        extra[i] = [extra[i][0] - j["cpn"], extra[i][1] - j["mpn"], extra[i][2] - j["gpn"]]
            seq += 1
            expect = (now + j["wall"], seq, j, ns)
            insort(running.setdefault(j["part"], []), expect, key=lambda e: (e[0], e[1]))
            heapq.heappush(heap, (now + j["run"], seq, j, ns, expect))
            out[j["id"]] = (now, now + j["run"], ns)
        queue = waiting
    return out, passes


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("site", type=Path)
    p.add_argument("--out", type=Path)
    a = p.parse_args(argv)
    nodes, jobs = read_cluster(a.site / "cluster.txt"), read_jobs(a.site / "sacct.txt")
    t = time.process_time()
    out, passes = simulate(nodes, jobs)
    cpu = time.process_time() - t
    wait = sum(out[j["id"]][0] - j["arrival"] for j in jobs) / len(jobs)
    print(f"reference EASY: {len(jobs)} jobs, {passes} passes, mean wait {wait:.0f} s, {cpu:.1f} s CPU")
    if a.out:
        with open(a.out, "w") as f:
            f.write("id,start,end,nodes\n")
            for j in jobs:
                s, e, ns = out[j["id"]]
                f.write(f"{j['id']},{s},{e},{' '.join(nodes[i]['name'] for i in ns)}\n")


if __name__ == "__main__":
    main()
