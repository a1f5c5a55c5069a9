"""Priority reservation groups: RESERVATIONDEPTH[n] with RESERVATIONQOSLIST[n] (spec §3.5.2).

A job belongs to the first group n (in index order) whose depth is > 0 and whose QOS list
holds the job's QOS or ALL; a job in no group gets no priority reservation. Each group has
its own depth: the number of priority reservations it may hold at once.
"""

from __future__ import annotations

from ..cfg import SchedulerConfig


class ReservationGroups:
    def __init__(self, cfg: SchedulerConfig):
        depth = cfg.indexed("RESERVATIONDEPTH")
        qos = cfg.indexed("RESERVATIONQOSLIST")
        self.depth: dict[int, int] = {int(k): int(v) for k, v in depth.items()}
        self.qos: dict[int, frozenset[str]] = {
            int(k): frozenset(q.upper() if q.upper() == "ALL" else q for q in (qos.get(k) or ("ALL",)))
            for k in set(self.depth) | {int(k) for k in qos}}
        self._order = sorted(k for k, d in self.depth.items() if d > 0)
        self._cache: dict[str, int | None] = {}

    def group(self, job_qos: str) -> int | None:
        """The group a QOS reserves in, or None. O(groups), cached per QOS."""
        if job_qos not in self._cache:
            self._cache[job_qos] = next(
                (k for k in self._order if "ALL" in self.qos.get(k, frozenset({"ALL"}))
                 or job_qos in self.qos.get(k, frozenset())), None)
        return self._cache[job_qos]
