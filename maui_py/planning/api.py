"""What a planner is to the rest of maui-py: the `Planner` protocol both planners implement
(planning/table.py, the node table; planning/counts.py, the count planner), the types
they answer with, and the abilities only one of them has.

Code outside planning/ holds a `Planner` and asks `Ability.X in planner.abilities` where
the two differ; it never names a concrete planner (tests/unit/test_import_rules.py), so a
branch on "which planner" is a question the planner answers. An optional ability's
methods exist on both planners: the one without the ability raises `Unsupported`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Protocol, Sequence, runtime_checkable

from ..cfg.choices import NodeAllocation
from ..model import JobRequest, Node, Resources
from .endheap import EndCursor

FOREVER = 1 << 62
"""End time of a hold or window without limit."""
NEVER = -FOREVER
"""Before every time: the first breakpoint of a step function."""


class Ability:
    """What a planner may do beyond the protocol's common questions: names of its
    `abilities` (plain strings, not an Enum: `Ability.X in planner.abilities` is asked per
    job in the passes, and an Enum member's hash is a Python call)."""

    COUNTS = "counts"
    """Plans processor counts on identical nodes: a hold in the future names no nodes
    (a Placement's `count`), and free_procs_at / ending_by answer."""
    REPLAN = "replan"
    """replan() re-makes reservations in order and freed_until() bounds what came free."""


def has(planner: "Planner | None", ability: str) -> bool:
    """Does `planner` (None: no planner yet) have `ability`? O(1)."""
    return planner is not None and ability in planner.abilities


class Unsupported(NotImplementedError):
    """An optional ability asked of a planner without it (see Ability)."""


@dataclass(frozen=True, slots=True)
class Placement:
    """Where and when a request fits: start, end and per-node resources.

    `items` and `version` say on which planner state it was computed, so that
    reserve_placement() can skip the checks when nothing changed since: (node index,
    vector) on the node table, (node index, processors) on the count planner's start
    now. `count`: processors held on no nodes yet (the count planner's later start; its
    allocation and items are empty)."""

    start: int
    end: int
    allocation: tuple[tuple[str, Resources], ...]
    items: tuple[tuple[int, tuple[int, ...] | int], ...] = field(default=(), compare=False,
                                                                 repr=False)
    version: int = field(default=-1, compare=False, repr=False)
    count: int = field(default=0, compare=False, repr=False)

    def __bool__(self) -> bool:
        return True

    @property
    def nodes(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.allocation)

    @property
    def procs(self) -> int:
        return sum(r.procs for _, r in self.allocation)


@dataclass(frozen=True, slots=True)
class NoPlacement:
    """A request that can never fit (or not within the asked horizon), and why."""

    reason: str

    def __bool__(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class Window:
    """A free backfill window: `procs` processors on `nodes` nodes for `duration` s."""

    procs: int
    nodes: int
    duration: int


class OverAllocation(ValueError):
    """A hold that would take more than a node has."""


@dataclass(slots=True)
class Compiled:
    """A request resolved against one planner: per-task vector, eligible nodes, counting mode."""

    request: JobRequest
    d: tuple[int, ...]
    tasks: int
    mode: str                 # "any" | "tpn" | "nodes"
    per_node: int             # tasks a node must hold to count (tpn, else 1)
    nodes_needed: int
    exclusive: bool
    eligible: int
    classes: list[tuple[int, int]]  # (mask of eligible nodes in a capacity class, idle fit)


Hold = tuple[str, int, int, Iterable[tuple[str, Resources]], str]
"""(owner, start, end, allocation, kind) as load() takes them."""


@runtime_checkable
class Planner(Protocol):
    """What is free over time on the nodes, and the holds that take it.

    `freed` moves whenever something held is given back (a release, an expiry, a hold
    moved earlier): until it moves, what is free only shrinks (planning/memo.py);
    given_back(stamp) names where and when, as (node mask, start, end), since it was
    `stamp` (None: not known), and starts_in whether a request could start earlier by it
    (gained_from: None for no, else an instant before which it still fits nowhere);
    over_in(owner), whether a node of that hold is over its capacity (a hold forced in).
    reach_runs, per processors per node, the runs the regions keep free (a bound).
    `version` moves on every change; `free_now` is the processors free at the origin."""

    abilities: frozenset[str]
    nodes: tuple[Node, ...]
    origin: int
    holds: dict
    freed: int
    version: int
    free_now: int

    def compile(self, req: JobRequest, job_class: str = "",
                exclusive: bool | None = None) -> Compiled | NoPlacement: ...

    def earliest_start(self, request: JobRequest | Compiled, wallclock: int,
                       after: int | None = None, *, policy: NodeAllocation,
                       until: int | None = None, ignore: Iterable[str] = (),
                       job_class: str = "", exclusive: bool | None = None
                       ) -> Placement | NoPlacement: ...

    def fits(self, allocation: Iterable[tuple[str, Resources]], start: int, end: int
             ) -> bool: ...

    def reserve(self, owner: str, start: int, end: int,
                allocation: Iterable[tuple[str, Resources]], kind: str = "job",
                force: bool = False, inside: Iterable[str] = (), procs: int | None = None,
                checked: bool = False) -> None: ...

    def reserve_placement(self, owner: str, p: Placement, kind: str = "job",
                          inside: Iterable[str] = ()) -> None: ...

    def release(self, owner: str) -> bool: ...

    def load(self, holds: Iterable[Hold]) -> None: ...

    def advance(self, now: int) -> list[str]: ...

    def next_change(self) -> float: ...

    def free_at(self, node: str, t: int) -> Resources: ...

    def change_points(self) -> list[int]: ...

    def windows(self, mask: int | None = None, min_duration: int = 0) -> list[Window]: ...

    def dump(self) -> str: ...

    def check(self) -> None: ...

    def free_procs_at(self, t: int) -> int: ...

    def ending_by(self, now: int) -> list[str]: ...

    def end_cursor(self, last: EndCursor | None = None) -> EndCursor: ...

    def freed_until(self, stamp: int) -> int | None: ...

    def given_back(self, stamp: int) -> list[tuple[int, int, int]] | None: ...

    def starts_in(self, cr: Compiled, wallclock: int, regions: list[tuple[int, int, int]],
                  now: int, start: int, ignore: tuple[str, ...]) -> bool: ...

    def gained_from(self, cr: Compiled, wallclock: int, regions: list[tuple[int, int, int]],
                    now: int, start: int, ignore: tuple[str, ...]) -> int | None: ...

    def over_in(self, own: str) -> bool: ...

    def reach_runs(self, regions: list[tuple[int, int, int]], now: int, eligible: int,
                   exclusive: bool, v: int) -> tuple[list[int], list[int]]: ...

    def replan(self, owners: Sequence[str], candidates: int, freed_until: int | None = None,
               all_held: bool = False) -> tuple[int, list[tuple[str, int]]]: ...
