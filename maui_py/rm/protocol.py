"""The resource-manager protocol: what every adapter (Slurm, Torque, the simulator) offers.

An adapter turns its resource manager's state into a ClusterSnapshot and carries out the
cycle's decisions. Everything it runs goes through argument lists (never a shell string:
job, user and account names come from users) with a timeout. A command that fails or
hangs raises RMError: the daemon logs it and tries again next cycle. A malformed record in
the resource manager's output is skipped with a warning (RecordWarning), never fatal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, runtime_checkable

from ..model import ClusterSnapshot, Decision


class RMError(RuntimeError):
    """The resource manager could not be reached or a command failed as a whole."""


class RMOutage(RMError):
    """The resource manager answered, but with errors or an empty view: its controller is
    down or restarting. Treated like any RMError (no cycle on that answer) and named apart
    so that adapters can say why an answer that exited 0 is not a view of the cluster."""


def check_answer(what: str, nodes: int, last_nodes: int) -> None:
    """RMOutage when an answer lists no node although the last good one listed some: a
    cluster does not lose every node between two polls, its controller does (a view with
    no nodes would make every running job look gone). O(1)."""
    if nodes == 0 and last_nodes > 0:
        raise RMOutage(f"{what}: no nodes listed (the last good answer had {last_nodes}); "
                       "taking it as an outage, not as an empty cluster")


class RecordWarning(UserWarning):
    """One record of resource-manager output was malformed and skipped."""


@dataclass(frozen=True, slots=True)
class StartFailure:
    """A start the resource manager refused or did not carry out."""

    job_id: str
    reason: str


@runtime_checkable
class ResourceManager(Protocol):
    """What the daemon and the simulator need from a resource manager."""

    name: str

    def snapshot(self) -> ClusterSnapshot:
        """The cluster now: nodes, every job it knows, its reservations. Raises RMError."""
        ...

    def apply(self, decisions: Sequence[Decision]) -> list[StartFailure]:
        """Carry out Start / Hold / ReleaseHold decisions (Reserve and Defer are the
        scheduler's own business; an adapter may mirror them). Returns the starts that
        failed; raises RMError only when nothing could be done at all."""
        ...

    def close(self) -> None:
        ...
