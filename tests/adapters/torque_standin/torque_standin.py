#!/usr/bin/env python3
"""A stand-in for Torque's client commands, for maui-py's tests. It is NOT Torque.

Called as qstat, pbsnodes, qrun, qhold, qrls, qalter, qsub or qdel (symlinks to this file),
it reads and writes a JSON state file (path in $TORQUE_STANDIN_STATE) and answers in
Torque's formats: `qstat -f -x` and `pbsnodes -x` XML shaped like the recorded samples,
`qsub` printing `<seq>.<server>`, Torque's error lines and exit codes (README.md lists
them). Job names, users, accounts and scripts are data: nothing given to it is ever run,
evaluated or passed to a shell. Standard library only; linear in the size of the state.
"""

from __future__ import annotations

import fcntl
import getopt
import json
import os
import re
import sys
import time
import xml.etree.ElementTree as ET

# (pbs_errno, text) as Torque's pbs_error_db.h has them
UNKJOBID = (15001, "Unknown Job Id Error")
BADSTATE = (15016, "Request invalid for state of job")
MODATRRUN = (15015, "Cannot modify attribute while job running")
RESCUNAV = (15044, "Resource temporarily unavailable")
UNKNODE = (15062, "Unknown node")
JOB_ID = re.compile(r"\d+(\[\d*\])?(\.[^@\s]+)?(@\S+)?")
ACTIVE = ("R", "E", "S")


class Fail(Exception):
    """Print `text` on stderr and exit with `code`."""

    def __init__(self, code: int, text: str):
        super().__init__(text)
        self.code = code


def now(state: dict) -> int:
    return int(os.environ.get("TORQUE_STANDIN_NOW") or time.time())


def full_id(state: dict, arg: str) -> str:
    """"12", "12.server" or "12@server" -> the stored id "12.server"."""
    base = arg.split("@", 1)[0]
    return base if "." in base else f"{base}.{state['server']}"


def find_job(state: dict, cmd: str, arg: str) -> tuple[str, dict]:
    if not JOB_ID.fullmatch(arg):
        raise Fail(1, f"{cmd}: illegally formed job identifier: {arg}")
    job_id = full_id(state, arg)
    if job_id not in state["jobs"]:
        raise Fail(2 if cmd == "qrun" else UNKJOBID[0] & 0xFF, f"{cmd}: {UNKJOBID[1]} {job_id}")
    return job_id, state["jobs"][job_id]


def used_slots(state: dict) -> dict[str, dict[int, str]]:
    """node -> {slot: job id} from the exec_host of active jobs."""
    used: dict[str, dict[int, str]] = {name: {} for name in state["nodes"]}
    for job_id, job in state["jobs"].items():
        if job["job_state"] in ACTIVE and job.get("exec_host"):
            for item in job["exec_host"].split("+"):
                host, _, slot = item.partition("/")
                used.setdefault(host, {})[int(slot)] = job_id
    return used


# ------------------------------------------------------------------ XML output
def _add(parent: ET.Element, tag: str, text) -> None:
    ET.SubElement(parent, tag).text = str(text)


def job_xml(job_id: str, job: dict, server: str) -> ET.Element:
    el = ET.Element("Job")
    _add(el, "Job_Id", job_id)
    for key in ("Job_Name", "Job_Owner", "job_state", "queue"):
        _add(el, key, job[key])
    _add(el, "server", server)
    for key in ("Account_Name", "ctime", "depend", "exec_host", "Hold_Types", "Priority", "qtime"):
        if job.get(key) not in (None, ""):
            _add(el, key, job[key])
    resources = ET.SubElement(el, "Resource_List")
    for key, value in job["Resource_List"].items():
        _add(resources, key, value)
    for key in ("euser", "egroup", "start_time", "comp_time"):
        if job.get(key) not in (None, ""):
            _add(el, key, job[key])
    return el


def node_xml(name: str, node: dict, used: dict[int, str], stamp: int) -> ET.Element:
    el = ET.Element("Node")
    full = len(used) >= node["np"]
    states = (["down"] if node.get("down") else []) + (["offline"] if node.get("offline") else [])
    states += ["job-exclusive"] if full else ([] if states else ["free"])
    _add(el, "name", name)
    _add(el, "state", ",".join(states))
    _add(el, "np", node["np"])
    _add(el, "properties", ",".join(node.get("properties", [])))
    _add(el, "ntype", "cluster")
    if used:
        _add(el, "jobs", ", ".join(f"{slot}/{job}" for slot, job in sorted(used.items())))
    mem = node.get("physmem_kb", 0)
    jobs = " ".join(sorted(set(used.values())))
    _add(el, "status", f"rectime={stamp},varattr=,jobs={jobs},state=free,loadave={len(used):.2f},"
                       f"ncpus={node['np']},physmem={mem}kb,availmem={mem}kb,totmem={mem}kb,"
                       "opsys=linux")
    _add(el, "gpus", node.get("gpus", 0))
    return el


def print_data(records: list[ET.Element]) -> None:
    if records:
        data = ET.Element("Data")
        data.extend(records)
        sys.stdout.write(ET.tostring(data, encoding="unicode") + "\n")


# ------------------------------------------------------------------ commands
def qstat(state: dict, args: list[str]) -> int:
    opts, rest = getopt.getopt(args, "fxt")
    if ("-x", "") not in opts:
        raise Fail(2, "qstat: the Torque stand-in answers only -x (XML)")
    named = [a for a in rest if not a.startswith("@")]  # "@server": there is only one
    wanted, code, err = [], 0, []
    for arg in named:
        try:
            wanted.append(find_job(state, "qstat", arg)[0])
        except Fail as e:
            err.append(str(e))
            code = e.code
    ids = wanted if named else list(state["jobs"])
    print_data([job_xml(i, state["jobs"][i], state["server"]) for i in ids])
    for line in err:
        print(line, file=sys.stderr)
    return code


def pbsnodes(state: dict, args: list[str]) -> int:
    opts, names = getopt.getopt(args, "xs:oc")
    flags = {flag for flag, _ in opts}
    for name in names:
        if name not in state["nodes"]:
            raise Fail(UNKNODE[0] & 0xFF, f"pbsnodes: {UNKNODE[1]}  MSG=cannot locate specified node")
    if "-o" in flags or "-c" in flags:
        for name in names:
            state["nodes"][name]["offline"] = "-o" in flags
        return 0
    used = used_slots(state)
    print_data([node_xml(n, state["nodes"][n], used.get(n, {}), now(state))
                for n in (names or state["nodes"])])
    return 0


def qrun(state: dict, args: list[str]) -> int:
    opts, jobs = getopt.getopt(args, "aH:")
    spec = dict(opts).get("-H")
    if not jobs:
        raise Fail(1, "Usage: qrun [-a] [-H host] job_id ...")
    for arg in jobs:
        job_id, job = find_job(state, "qrun", arg)
        if job["job_state"] != "Q":
            raise Fail(2, f"qrun: {BADSTATE[1]} {job_id}")
        if not spec:
            raise Fail(2, f"qrun: {RESCUNAV[1]} MSG=the stand-in needs -H {job_id}")
        job["exec_host"] = "+".join(_place(state, spec, job_id))
        job.update(job_state="R", start_time=now(state))
    return 0


def _place(state: dict, spec: str, job_id: str) -> list[str]:
    """exec_host entries for `host[:ppn=N]+...`, lowest free slots first."""
    used = used_slots(state)
    entries = []
    for item in spec.split("+"):
        host, *attrs = item.split(":")
        ppn = next((int(a[4:]) for a in attrs if a.startswith("ppn=") and a[4:].isdigit()), 1)
        node = state["nodes"].get(host)
        if node is None:
            raise Fail(2, f"qrun: Unknown node in hostlist '{spec[:16]}...' for job {job_id}")
        free = [s for s in range(node["np"]) if s not in used[host]]
        if node.get("down") or node.get("offline") or len(free) < ppn:
            raise Fail(2, f"qrun: {RESCUNAV[1]} MSG=cannot allocate node '{host}' to job - node "
                          f"not currently available (nps needed/free: {ppn}/{len(free)}) {job_id}")
        for slot in free[:ppn]:
            used[host][slot] = job_id
            entries.append(f"{host}/{slot}")
    return entries


def _hold_letters(cmd: str, opts: list[tuple[str, str]]) -> str:
    letters = dict(opts).get("-h", "u").strip()
    if not letters or set(letters) - set("uos"):
        raise Fail(2, f"{cmd}: illegal -h value")
    return letters


def qhold(state: dict, args: list[str]) -> int:
    opts, jobs = getopt.getopt(args, "h:t:")
    letters = _hold_letters("qhold", opts)
    for arg in jobs:
        job_id, job = find_job(state, "qhold", arg)
        if job["job_state"] not in ("Q", "H", "W"):
            raise Fail(BADSTATE[0] & 0xFF, f"qhold: {BADSTATE[1]} {job_id}")
        have = job["Hold_Types"].replace("n", "") + letters
        job["Hold_Types"] = "".join(c for c in "uos" if c in have)
        job["job_state"] = "H"
    return 0


def qrls(state: dict, args: list[str]) -> int:
    opts, jobs = getopt.getopt(args, "h:t:")
    letters = _hold_letters("qrls", opts)
    for arg in jobs:
        job_id, job = find_job(state, "qrls", arg)
        left = "".join(c for c in job["Hold_Types"] if c not in letters + "n")
        job["Hold_Types"] = left or "n"
        if job["job_state"] == "H" and not left:
            job["job_state"] = "Q"
    return 0


def _resources(values: list[str]) -> dict[str, str]:
    out = {}
    for value in values:
        for item in value.split(","):
            key, _, val = item.partition("=")
            out[key.strip()] = val.strip()
    if "nodes" in out:
        out["nodect"] = str(sum(int(g.split(":")[0]) if g.split(":")[0].isdigit() else 1
                                for g in out["nodes"].split("#")[0].split("+")))
    return out


def qalter(state: dict, args: list[str]) -> int:
    opts, jobs = getopt.getopt(args, "l:N:A:p:")
    for arg in jobs:
        job_id, job = find_job(state, "qalter", arg)
        if job["job_state"] in ACTIVE and any(f == "-l" for f, _ in opts):
            raise Fail(MODATRRUN[0] & 0xFF, f"qalter: {MODATRRUN[1]} {job_id}")
        for flag, value in opts:
            if flag == "-l":
                job["Resource_List"].update(_resources([value]))
            else:
                job[{"-N": "Job_Name", "-A": "Account_Name", "-p": "Priority"}[flag]] = value
    return 0


def qsub(state: dict, args: list[str]) -> int:
    opts, rest = getopt.getopt(args, "N:l:q:A:u:hp:W:")
    o = {flag: value for flag, value in opts}
    if rest:
        with open(rest[0], encoding="utf-8", errors="replace") as f:
            f.read()  # Torque reads the script for #PBS lines; the stand-in only checks it exists
    elif not sys.stdin.isatty():
        sys.stdin.read()
    user = o.get("-u") or os.environ.get("USER") or "nobody"
    job_id = f"{state['next_id']}.{state['server']}"
    state["next_id"] += 1
    stamp = now(state)
    state["jobs"][job_id] = {
        "Job_Name": o.get("-N", os.path.basename(rest[0]) if rest else "STDIN"),
        "Job_Owner": f"{user}@standin-login", "euser": user,
        "egroup": os.environ.get("TORQUE_STANDIN_GROUP", user),
        "Account_Name": o.get("-A", ""), "queue": o.get("-q", "batch"),
        "job_state": "H" if "-h" in o else "Q", "Hold_Types": "u" if "-h" in o else "n",
        "Priority": o.get("-p", "0"), "ctime": stamp, "qtime": stamp,
        "depend": o.get("-W", "").removeprefix("depend="),
        "Resource_List": _resources([v for f, v in opts if f == "-l"]),
    }
    print(job_id)
    return 0


def qdel(state: dict, args: list[str]) -> int:
    _, jobs = getopt.getopt(args, "")
    for arg in jobs:
        _, job = find_job(state, "qdel", arg)
        if job["job_state"] != "C":
            job.update(job_state="C", comp_time=now(state))
    return 0


COMMANDS = {f.__name__: f for f in (qstat, pbsnodes, qrun, qhold, qrls, qalter, qsub, qdel)}


def main(argv: list[str]) -> int:
    cmd = os.path.basename(argv[0])
    path = os.environ.get("TORQUE_STANDIN_STATE")
    if cmd not in COMMANDS or not path:
        print(f"torque stand-in: called as {cmd!r}; needs one of {sorted(COMMANDS)} "
              "and TORQUE_STANDIN_STATE", file=sys.stderr)
        return 2
    with open(path, "r+", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        state = json.load(f)
        try:
            code = COMMANDS[cmd](state, argv[1:])
        except getopt.GetoptError as e:
            print(f"{cmd}: {e}", file=sys.stderr)
            return 2
        except Fail as e:  # what was done before the failure stays done, as in Torque
            print(str(e), file=sys.stderr)
            code = e.code
        f.seek(0)
        json.dump(state, f, indent=1)
        f.truncate()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
