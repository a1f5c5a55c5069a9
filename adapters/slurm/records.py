"""`scontrol show <entity> -o` lines -> {key: value} dicts.

One record per line, `Key=Value` pairs separated by blanks. Values may hold blanks and `=`:
`OS=Linux 6.1 #1 SMP`, `TRES=cpu=4,mem=400M`, `Reason=maint window [root@...]`. A key is
a word of letters, digits and `_:/` that starts a blank-separated token and is followed
by `=`; a value runs to the next key. Inside free-text fields (job name, comments, paths,
node reason) only the keys scontrol really prints after them end the value, so a job
named `run lr=0.1` keeps its name. A key that appears twice makes the record ambiguous
(a job name that imitates other fields) and it is refused. Linear in the line length.
"""

from __future__ import annotations

import re

_KEY = re.compile(r"(?:(?<=\s)|^)([A-Za-z][A-Za-z0-9_:/]*)=")

FREE_TEXT = frozenset({
    "JobName", "Comment", "AdminComment", "SystemComment", "Command", "WorkDir", "StdErr",
    "StdIn", "StdOut", "Reason", "OS", "Extra", "Reservation", "ReservationName",
})
"""Fields whose value a user (or admin) writes and may contain blanks or `k=v` text."""

JOB_KEYS = frozenset("""
JobId ArrayJobId ArrayTaskId ArrayTaskThrottle HetJobId HetJobOffset HetJobIdSet JobName
UserId GroupId MCS_label Priority Nice Account QOS WCKey JobState Reason Dependency Requeue
Restarts BatchFlag Reboot ExitCode DerivedExitCode RunTime TimeLimit TimeMin SubmitTime
EligibleTime AccrueTime StartTime EndTime Deadline PreemptEligibleTime PreemptTime
SuspendTime SecsPreSuspend LastSchedEval Scheduler Partition AllocNode:Sid ReqNodeList
ExcNodeList NodeList BatchHost NumNodes NumCPUs NumTasks CPUs/Task ReqB:S:C:T TRES
Socks/Node NtasksPerN:B:S:C CoreSpec MinCPUsNode MinMemoryNode MinMemoryCPU MinTmpDiskNode
Features Prefer DelayBoot OverSubscribe Contiguous Licenses Network Command WorkDir
Comment AdminComment SystemComment StdErr StdIn StdOut Power TresPerNode TresPerTask
TresPerJob TresPerSocket CpusPerTres MemPerTres TresBind TresFreq Reservation BurstBuffer
BurstBufferState CpuFreqMin CpuFreqMax CpuFreqGov MailUser MailType NtasksPerTRES
ResizeTime Container ContainerID ClusterFeatures Extra Switches Wait-for-Switch
""".split())

NODE_KEYS = frozenset("""
NodeName Arch CoresPerSocket CPUAlloc CPUEfctv CPUTot CPULoad AvailableFeatures
ActiveFeatures Gres GresDrain GresUsed NodeAddr NodeHostName Port Version OS RealMemory
AllocMem FreeMem Sockets Boards State ThreadsPerCore TmpDisk Weight Owner MCS_label
Partitions BootTime SlurmdStartTime LastBusyTime ResumeAfterTime CfgTRES AllocTRES CapWatts
CurrentWatts AveWatts ExtSensorsJoules ExtSensorsWatts ExtSensorsTemp Reason Comment Extra
CoreSpecCount CPUSpecList MemSpecLimit NextState InstanceId InstanceType
""".split())

RESERVATION_KEYS = frozenset("""
ReservationName StartTime EndTime Duration Nodes NodeCnt CoreCnt Features PartitionName
Flags TRES Users Groups Accounts Licenses State BurstBuffer Watts MaxStartDelay Comment
""".split())


class RecordError(ValueError):
    """A line that cannot be read as one record."""


def parse_line(line: str, known: frozenset[str]) -> dict[str, str]:
    """One `-o` line -> {key: stripped value}. Raises RecordError on a repeated key.

    `known` lists the keys scontrol prints for this entity: inside a FREE_TEXT value, a
    `word=` that is not one of them is part of the value.
    """
    marks: list[tuple[str, int, int]] = []   # key, key start, value start
    for m in _KEY.finditer(line):
        key = m.group(1)
        if marks and marks[-1][0] in FREE_TEXT and key not in known:
            continue
        marks.append((key, m.start(), m.end()))
    if not marks or marks[0][1] != 0:
        raise RecordError(f"not a Key=Value record: {line[:60]!r}")
    out: dict[str, str] = {}
    for i, (key, _, vstart) in enumerate(marks):
        vend = marks[i + 1][1] if i + 1 < len(marks) else len(line)
        if key in out:
            raise RecordError(f"key {key} appears twice (a name imitating fields?)")
        out[key] = line[vstart:vend].strip()
    return out
