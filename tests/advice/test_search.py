"""advice/search.largest: whatever the question (monotone or not) and the guess, the answer
is a boundary (true there, false one above, or the top of the range), None only when the
bottom is false; on a monotone question it is the one boundary, and a right guess settles
it with two questions."""

from hypothesis import given, strategies as st

from maui_py.advice.search import largest


@st.composite
def questions(draw):
    lo = draw(st.integers(-5, 20))
    hi = lo + draw(st.integers(-1, 60))
    truth = draw(st.lists(st.booleans(), min_size=max(0, hi - lo + 1), max_size=max(0, hi - lo + 1)))
    guess = draw(st.none() | st.integers(lo - 3, hi + 3))
    return lo, hi, truth, guess


@given(questions())
def test_the_answer_is_a_boundary_of_any_question(q):
    lo, hi, truth, guess = q
    asked = []

    def ok(v):
        assert lo <= v <= hi and v not in asked          # in range, never twice
        asked.append(v)
        return truth[v - lo]
    v = largest(ok, lo, hi, guess)
    if v is None:
        assert hi < lo or not truth[0]
    else:
        assert truth[v - lo] and (v == hi or not truth[v + 1 - lo])


@given(st.integers(0, 10**6), st.integers(1, 10**6))
def test_a_monotone_question_gets_its_boundary_and_a_right_guess_two_questions(b, hi):
    lo = 1
    count = [0]

    def ok(v):
        count[0] += 1
        return v <= b
    want = min(b, hi) if b >= lo else None
    assert largest(ok, lo, hi) == want
    assert count[0] <= 2 + (hi - lo + 1).bit_length()
    if want is not None and want < hi:
        count[0] = 0
        assert largest(ok, lo, hi, guess=want) == want and count[0] == 2
