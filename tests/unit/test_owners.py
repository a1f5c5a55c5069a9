"""Owner keys (planning/owners.py): one encoding, read back exactly, no two owners alike."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.model import Node, Reservation, ReservationKind, Resources
from maui_py.planning import owners
from maui_py.planning.table import ReservationTable

NAMES = st.text(alphabet="ab:@1", max_size=6)


@given(NAMES, NAMES, st.none() | st.integers(0, 10**9))
def test_a_credit_key_reads_back_its_parts(member, inside, start):
    key = owners.credit(member, inside, start)
    assert owners.parse_credit(key) == (member, start, inside)


@given(NAMES)
def test_job_and_reservation_keys_differ_and_only_a_job_hold_names_a_job(name):
    r = Reservation(name, ReservationKind.STANDING, 0, 10)
    keys = {owners.job(name), owners.priority(name), owners.reservation(r)}
    assert len(keys) == 3
    assert owners.job_of(owners.job(name)) == name
    assert owners.job_of(owners.priority(name)) is None
    assert owners.job_of(owners.reservation(r)) is None


def test_a_job_reservation_has_no_reservation_key():
    try:
        owners.reservation(Reservation("j1", ReservationKind.JOB, 0, 10))
    except ValueError as e:
        assert "j1" in str(e)
    else:
        raise AssertionError("a job reservation got a non-job key")


def test_credits_of_names_holding_colons_do_not_collide():
    # Regression: credits were keyed f"credit:{member}:{reservation}", so job "x" inside the
    # setres reservation "user:y" and job "x:user" inside reservation "y" shared one key
    # ("credit:job:x:user:user:y"): the second credit replaced the first and the table
    # counted the first job twice for outsiders.
    R = Resources.of
    t = ReservationTable([Node("n0", R(2)), Node("n1", R(2))], 0)
    ry = owners.reservation(Reservation("user:y", ReservationKind.USER, 0, 100))
    rz = owners.reservation(Reservation("y", ReservationKind.USER, 0, 100))
    t.reserve(ry, 0, 100, [("n0", R(2))], kind="user")
    t.reserve(rz, 0, 100, [("n1", R(2))], kind="user")
    t.reserve(owners.job("x"), 0, 100, [("n0", R(1))], kind="job", inside=(ry,))
    t.reserve(owners.job("x:user"), 0, 100, [("n1", R(1))], kind="job", inside=(rz,))
    t._check()
    credits = [o for o, h in t.holds.items() if h.kind == "credit"]
    assert len(credits) == 2
    assert {owners.parse_credit(c).member for c in credits} == {"job:x", "job:x:user"}
    assert t.release(owners.job("x"))
    t._check()
    assert [owners.parse_credit(o).member for o, h in t.holds.items() if h.kind == "credit"] \
        == ["job:x:user"]
