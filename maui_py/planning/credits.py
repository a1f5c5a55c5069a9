"""Reservation credits on the node table (issue 12 item 8): a job inside reservations it
may use plans as if they held nothing; where its hold overlaps them, credit holds (negative
vectors) take the overlap back from each reservation, per node and per segment of time,
never more than the hold takes nor more than the reservation holds less other members'
credits. The maps credits_against (reservation -> its credit holds) and members_of
(reservation -> holds inside it) are kept here."""

from __future__ import annotations

from typing import Iterable

from . import owners
from .steps import TableHold, vadd, vsub


class Credits:
    """Credit holds and reservation membership on the node table: a hold inside reservations
    its job may use takes back, as credit holds, what of them it overlaps, so usage is
    counted once. A part of ReservationTable (planning/table.py), which owns the state."""

    def with_credits(self, owners: Iterable[str]) -> tuple[str, ...]:
        """The owners plus the credit holds taken against them: what to ignore to see the
        table as if those reservations (and their members' credits) held nothing."""
        out = list(owners)
        for o in list(out):
            out.extend(sorted(self.credits_against.get(o, ())))
        return tuple(out)

    def _take_credits(self, owner: str, inside: tuple[str, ...]) -> None:
        """Credit holds for `owner` against the reservations in `inside` it overlaps.

        On node i at instant t, with the hold taking v there, reservation r (in `inside`
        order) is credited c = min(what of v earlier reservations left, r's slack), where
        r's slack is what r holds on i at t less the credits other members already took
        against it there. Credits are worked out per segment of time between every
        boundary involved (the hold, the reservations, the existing credits against them)
        and become one credit hold per stretch with the same per-node amounts.

        Cause of issue 12 item 8 (node over-allocated with a member inside several
        reservations): credits used to be one constant amount per reservation over the
        whole overlap, and a credit against a later reservation was reduced by an earlier
        one whenever their times intersected at all, even though the earlier credit only
        covered part of the overlap. Where the later reservation held the node alone the
        hold was then not credited and was counted twice (the room check had ignored the
        reservation, so this could exceed capacity). Nor did a credit respect what other
        members had already credited against the same reservation: two members could each
        take back the reservation's whole amount, and the table then showed less in use
        than the members really held. Per segment, the total credited is at most v and at
        most what the reservations hold, so node usage never exceeds what the room check
        allowed. O(k x (m + c)^2) for m reservations and c existing credits on a node.
        """
        h = self.holds[owner]
        lo, hi = max(h.start, self.origin), h.end
        rsv = []
        for r_owner in dict.fromkeys(inside):
            r = self.holds.get(r_owner)
            if r is not None and r.kind != "credit" and r_owner != owner:
                a, b = max(lo, r.start), min(hi, r.end)
                if a < b:
                    rsv.append((r_owner, r, a, b))
        h.inside = tuple(r_owner for r_owner, _r, _a, _b in rsv)
        for r_owner in h.inside:
            self.members_of.setdefault(r_owner, set()).add(owner)
        if not rsv:
            h.credits = ()
            return
        taken = {r_owner: [self.holds[c] for c in sorted(self.credits_against.get(r_owner, ()))
                           if c in self.holds] for r_owner, _r, _a, _b in rsv}
        h.credits = self._hold_credits(owner, self._credit_pieces(h, rsv, taken))

    @staticmethod
    def _credit_pieces(h: TableHold, rsv: list, taken: dict[str, list[TableHold]]
                       ) -> dict[str, dict[int, list[tuple[int, int, tuple[int, ...]]]]]:
        """r_owner -> node -> [(segment start, segment end, credit)]: per node of `h`, per
        segment between the boundaries involved, what each reservation of `rsv` (owner,
        hold, overlap start, overlap end) is credited, in order (see _take_credits)."""
        pieces: dict[str, dict[int, list[tuple[int, int, tuple[int, ...]]]]] = {}
        for i, v in h.vec.items():
            here = []
            cuts = set()
            for r_owner, r, a, b in rsv:
                rv = r.vec.get(i)
                if rv is None:
                    continue
                prior = [(max(a, c.start), min(b, c.end), c.vec[i]) for c in taken[r_owner]
                         if i in c.vec and c.start < b and a < c.end]
                here.append((r_owner, rv, a, b, prior))
                cuts.update((a, b))
                cuts.update(x for ps, pe, _ in prior for x in (ps, pe))
            cuts = sorted(cuts)
            for x, y in zip(cuts, cuts[1:]):
                left = v
                for r_owner, rv, a, b, prior in here:
                    if not (a <= x and y <= b):
                        continue
                    slack = rv
                    for ps, pe, neg in prior:        # credit holds carry negative vectors
                        if ps <= x and y <= pe:
                            slack = vadd(slack, neg)
                    c = tuple(max(0, min(p, q)) for p, q in zip(left, slack))
                    if any(c):
                        left = vsub(left, c)
                        pieces.setdefault(r_owner, {}).setdefault(i, []).append((x, y, c))
                    if not any(left):
                        break
        return pieces

    def _hold_credits(self, owner: str, pieces: dict[str, dict[int, list]]) -> tuple[str, ...]:
        """Hold the credits of `pieces` (_credit_pieces) for `owner`: one credit hold per
        stretch of time with the same per-node amounts, per reservation. Their owners."""
        made = []
        for r_owner, per_node in pieces.items():
            cuts = sorted({x for segs in per_node.values() for s, e, _ in segs for x in (s, e)})
            runs: list[list] = []                    # [start, end, items], merged when equal
            for x, y in zip(cuts, cuts[1:]):
                items = tuple((i, tuple(-q for q in c)) for i, segs in sorted(per_node.items())
                              for s, e, c in segs if s <= x and y <= e)
                if not items:
                    continue
                if runs and runs[-1][1] == x and runs[-1][2] == items:
                    runs[-1][1] = y
                else:
                    runs.append([x, y, items])
            for n, (s, e, items) in enumerate(runs):
                credit = owners.credit(owner, r_owner, s if n else None)
                self._register(credit, "credit", s, e, items)
                self.holds[credit].inside = (r_owner,)
                self._splice(items, s, e, 1)
                self.credits_against.setdefault(r_owner, set()).add(credit)
                made.append(credit)
        return tuple(made)

    def _forget_expired(self, expired: list[str]) -> None:
        """Drop the owners of expired holds (already gone from holds) from the credits
        against reservations and the reservations' members; a member of an expired
        reservation is inside it no more. O(credits + members)."""
        if self.credits_against:
            gone = set(expired)
            for r_owner in list(self.credits_against):
                live = {c for c in self.credits_against[r_owner] if c not in gone}
                if r_owner in gone or not live:
                    del self.credits_against[r_owner]
                else:
                    self.credits_against[r_owner] = live
        if self.members_of:
            gone = set(expired)
            for r_owner in list(self.members_of):
                live = {m for m in self.members_of[r_owner] if m not in gone}
                if r_owner in gone:
                    for m in live:
                        mh = self.holds[m]
                        mh.inside = tuple(r for r in mh.inside if r != r_owner)
                    live = set()
                if live:
                    self.members_of[r_owner] = live
                else:
                    del self.members_of[r_owner]

    def _retake_credits(self, owner: str) -> None:
        """Work a member's credits out afresh (after a reservation or member it shares
        nodes with went). Each credit can only grow, in total: the slack the member had
        is still there, plus what was freed. Same cost as _take_credits."""
        h = self.holds[owner]
        for credit in h.credits:
            self._drop_credit(credit)
        h.credits = ()
        for r_owner in h.inside:
            ms = self.members_of.get(r_owner)
            if ms is not None:
                ms.discard(owner)
                if not ms:
                    del self.members_of[r_owner]
        self._take_credits(owner, h.inside)

    def _drop_credit(self, credit: str) -> None:
        c = self.holds.pop(credit, None)
        if c is None:
            return
        self._splice(c.alloc, c.start, c.end, -1)
        r_owner = c.inside[0]
        cs = self.credits_against.get(r_owner)
        if cs is not None:
            cs.discard(credit)
            if not cs:
                del self.credits_against[r_owner]

    def _check_credits_within(self, h: TableHold, credits: list[TableHold], what: str) -> None:
        """Assert that at every instant and on every node the credits add up to at most what
        hold `h` has there (credit holds carry negative vectors)."""
        per_node: dict[int, list] = {}
        for c in credits:
            assert c.kind == "credit" and h.start <= c.start and c.end <= h.end, c.owner
            for i, v in c.alloc:
                assert i in h.vec, f"credit {c.owner} on a node {h.owner} does not hold"
                per_node.setdefault(i, []).append((c.start, c.end, tuple(-x for x in v), c.owner))
        for i, cs in per_node.items():
            _T, U = self._steps_from(cs)
            for u in U:
                assert all(0 <= x <= y for x, y in zip(u, h.vec[i])), (
                    f"credits {what} on {self.nodes[i].name}: {u} > {h.vec[i]}")

    def _check_credits(self) -> None:
        """Assert that credits and memberships are mutual and that credits never take back
        more than a reservation or a member holds. O(H h log h)."""
        for r_owner, credits in self.credits_against.items():
            assert r_owner in self.holds and credits, f"stale credits against {r_owner}"
            for c in credits:
                assert self.holds[c].kind == "credit" and owners.parse_credit(c).reservation == r_owner, c
            # credits against a reservation never take back more than it holds, where it
            # holds it (else outsiders would see less in use than the members hold)
            r = self.holds[r_owner]
            self._check_credits_within(r, [self.holds[c] for c in credits], f"against {r_owner}")
        for r_owner, ms in self.members_of.items():
            assert r_owner in self.holds and ms, f"stale members of {r_owner}"
            for m in ms:
                assert m in self.holds and r_owner in self.holds[m].inside, (m, r_owner)
        for owner, h in self.holds.items():
            if h.kind == "credit":
                assert len(h.inside) == 1 and owner in self.credits_against.get(h.inside[0], ())
                continue
            for r_owner in h.inside:
                assert owner in self.members_of.get(r_owner, ()), (owner, r_owner)
            mine = [self.holds[c] for c in h.credits if c in self.holds]
            if mine:   # nor more than the member itself holds
                self._check_credits_within(h, mine, f"taken by {owner}")
