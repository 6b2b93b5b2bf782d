"""State-machine templates on a hand-made event log (sessions and pages), answers computed by hand.

Seconds after 2026-01-02 10:00 UTC:

A (u1): 0 home, 10 search, 30 product, 40 search, 70 product, 100 cart, 130 exit
B (u2): 0 home, 20 product, 50 cart, 60 checkout, 90 purchase
C (u1): 0 home, 5 search, 25 product, 45 exit
D (u2): 300 home, 310 product, 340 product, 350 cart, 400 exit
E (u3): 600 home, 610 exit
"""

import pandas as pd
import pytest

from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window

T0 = pd.Timestamp("2026-01-02T10:00:00Z")
PAGES = {
    "A": [(0, "home"), (10, "search"), (30, "product"), (40, "search"), (70, "product"), (100, "cart"), (130, "exit")],
    "B": [(0, "home"), (20, "product"), (50, "cart"), (60, "checkout"), (90, "purchase")],
    "C": [(0, "home"), (5, "search"), (25, "product"), (45, "exit")],
    "D": [(300, "home"), (310, "product"), (340, "product"), (350, "cart"), (400, "exit")],
    "E": [(600, "home"), (610, "exit")],
}
USER = {"A": "u1", "B": "u2", "C": "u1", "D": "u2", "E": "u3"}
PAGE = {"column": "page"}


def _sessions() -> pd.DataFrame:
    rows = [(s, sec, p) for s, evs in PAGES.items() for sec, p in evs]
    rows.sort(key=lambda r: (r[2], -r[1]))  # scrambled physical order
    return pd.DataFrame({"session_id": [r[0] for r in rows], "user_id": [USER[r[0]] for r in rows],
                         "page": [r[2] for r in rows],
                         "timestamp": [(T0 + pd.Timedelta(seconds=r[1])).isoformat() for r in rows]})


@pytest.fixture
def b(tiny):
    users = pd.DataFrame({"user_id": ["u1", "u2", "u3"], "country": ["US", "IND", "US"]})
    return tiny({"sessions": _sessions(), "users": users})


def q(template, state=PAGE, **kw):
    params = {"state": state, **kw.pop("params", {})}
    return QuerySpec(template=template, table="sessions", entity="session_id", time="timestamp", params=params, **kw)


def win(a: int, z: int) -> Window:
    return Window(start=(T0 + pd.Timedelta(seconds=a)).isoformat(), end=(T0 + pd.Timedelta(seconds=z)).isoformat())


US = EntityFilter(predicates=[Predicate(column="country", op="==", value="US")], table="users", key="user_id",
                  ref="user_id")


# ---------------------------------------------------------------- common_paths
def test_common_paths_tie_broken_alphabetically(b):
    # first 3 steps: A home>search>product, B home>product>cart, C home>search>product,
    # D home>product>cart (product twice in a row is one step), E has 2 steps → left out
    assert b.answer(q("common_paths", params={"n": 3, "k": 1})) == [["home > product > cart", 2]]
    got = b.answer(q("common_paths", params={"n": 3, "k": 5}))
    assert got == [["home > product > cart", 2], ["home > search > product", 2]]
    # naive: every run of 3 rows; home>search>product (A, C) and product>cart>exit (A, D) twice each
    assert b.naive(q("common_paths", params={"n": 3, "k": 2})) == [["home > search > product", 2],
                                                                  ["product > cart > exit", 2]]


def test_common_paths_window_on_first_row_and_entity_filter(b):
    # sessions starting in [0, 300): A, B, C; D starts at 300, the excluded end
    got = b.answer(q("common_paths", window=win(0, 300), params={"n": 3, "k": 2}))
    assert got == [["home > search > product", 2], ["home > product > cart", 1]]
    assert b.answer(q("common_paths", window=win(300, 301), params={"n": 3, "k": 2})) == [["home > product > cart", 1]]
    # US users: A, C (E too short) — 4 steps: A home>search>product>search, C home>search>product>exit
    got = b.answer(q("common_paths", entity_filter=US, params={"n": 4, "k": 3}))
    assert got == [["home > search > product > exit", 1], ["home > search > product > search", 1]]


# ---------------------------------------------------------------- state_occupancy
def test_state_occupancy_time_weighted(b):
    # row → next row seconds: home 10+20+5+10+10 = 55, search 20+30+20 = 70,
    # product 10+30+30+20+30+10 = 130, cart 30+10+50 = 90, checkout 30; last rows (exit, purchase) open
    total = 55 + 70 + 130 + 90 + 30
    want = {"home": 55, "search": 70, "product": 130, "cart": 90, "checkout": 30}
    assert b.answer(q("state_occupancy")) == pytest.approx({k: 100 * v / total for k, v in want.items()})
    # naive: share of the 23 rows
    rows = {"home": 5, "search": 3, "product": 6, "cart": 3, "checkout": 1, "purchase": 1, "exit": 4}
    assert b.naive(q("state_occupancy")) == pytest.approx({k: 100 * v / 23 for k, v in rows.items()})


def test_state_occupancy_window_on_interval_start(b):
    # rows in [30, 350): A product 10, search 30, product 30, cart 30; B cart 10, checkout 30;
    # D home 10, product 30, product 10 (D's cart at 350 is out); exit/purchase rows are last rows
    want = {"product": 80, "search": 30, "cart": 40, "checkout": 30, "home": 10}
    got = b.answer(q("state_occupancy", window=win(30, 350)))
    assert got == pytest.approx({k: 100 * v / 190 for k, v in want.items()})
    assert b.answer(q("state_occupancy", window=win(610, 700))) is None  # only E's last row


# ---------------------------------------------------------------- first_passage_time, durations on logs
def test_first_passage_time_sessions(b):
    # cart: A 100 s, B 50 s, D 350 - 300 = 50 s; C and E never
    assert b.answer(q("first_passage_time", params={"value": "cart"})) == pytest.approx(200 / 3)
    # naive adds C (45 s span) and E (10 s span)
    assert b.naive(q("first_passage_time", params={"value": "cart"})) == pytest.approx(255 / 5)
    # first rows in [0, 300): A, B (C never reaches cart)
    assert b.answer(q("first_passage_time", window=win(0, 300), params={"value": "cart"})) == pytest.approx(75)


def test_state_duration_and_threshold_on_logs(b):
    # product episodes: A 10, A 30, B 30, C 20, D 40 (two rows) → 130 / 5
    assert b.answer(q("state_duration", params={"value": "product"})) == pytest.approx(26)
    # naive: per session totals A 40, B 30, C 20, D 40 → 130 / 4
    assert b.naive(q("state_duration", params={"value": "product"})) == pytest.approx(32.5)
    # cart entries: A@100 (no checkout), B@50 (checkout 10 s later), D@350 (none)
    p = {"value": "cart", "outcome": "checkout"}
    assert b.answer(q("threshold_without_outcome", params={**p, "horizon_s": 10})) == 2
    assert b.answer(q("threshold_without_outcome", params={**p, "horizon_s": 9})) == 3
    assert b.naive(q("threshold_without_outcome", params={**p, "horizon_s": 9})) == 2


def test_null_state_is_a_state_of_its_own(tiny):
    df = pd.DataFrame({"session_id": ["X"] * 4, "page": ["a", None, "a", "b"],
                       "timestamp": [(T0 + pd.Timedelta(minutes=m)).isoformat() for m in range(4)]})
    b = tiny({"sessions": df})
    # episodes a[0,1) <null>[1,2) a[2,3) b[3, open)
    assert b.answer(q("revisit_count", params={"value": "a"})) == 1
    assert b.answer(q("transition_counts", params={"value": "a"})) == {"<null>": 1, "b": 1}
    assert b.answer(q("state_duration", params={"value": "a"})) == pytest.approx(60)
    assert b.answer(q("common_paths", params={"n": 3, "k": 1})) == [["a > <null> > a", 1]]
