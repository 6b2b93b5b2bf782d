"""Sequence templates on hand-made tables: answers computed by hand, both executors must agree.

Fixture ``events`` (minutes after 2026-01-01 00:00 UTC, action; page follows the action):
  S1 (user U1): 0 view, 1 view, 3 add, 4 view, 6 view, 7 checkout, 8 view, 9 purchase
  S2 (user U1): 0 add, 2 view, 5 add, 20 view, 21 checkout
  S3 (user U2): 10 view, 11 <null>, 12 view, 13 back
  S4 (user U2): 60 view, 90 add, 91 view
Fixture ``readings`` (cpu every 15 min from 00:00; "in" = cpu > 80):
  R1: 50 90 95 40 85 None 88   → out in in out in out in
  R2: 85 85 70                 → in in out
"""

import pandas as pd
import pytest

from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window

VIEW = {"column": "action", "op": "==", "value": "view"}
ADD = {"column": "action", "op": "==", "value": "add"}
CHECKOUT = {"column": "action", "op": "==", "value": "checkout"}
PURCHASE = {"column": "action", "op": "==", "value": "purchase"}
CART_PAGE = {"column": "page", "op": "==", "value": "cart"}
HOT = {"column": "cpu", "op": ">", "value": 80}
PAGES = {"view": "product", "add": "cart", "checkout": "checkout", "purchase": "purchase", "back": "search", None: "home"}


def at(minute: int) -> str:
    return f"2026-01-01T{minute // 60:02d}:{minute % 60:02d}:00Z"


def w(a: int, b: int) -> Window:
    return Window(start=at(a), end=at(b))


ROWS = [("S1", "U1", m, a) for m, a in [(0, "view"), (1, "view"), (3, "add"), (4, "view"), (6, "view"),
                                        (7, "checkout"), (8, "view"), (9, "purchase")]]
ROWS += [("S2", "U1", m, a) for m, a in [(0, "add"), (2, "view"), (5, "add"), (20, "view"), (21, "checkout")]]
ROWS += [("S3", "U2", m, a) for m, a in [(10, "view"), (11, None), (12, "view"), (13, "back")]]
ROWS += [("S4", "U2", m, a) for m, a in [(60, "view"), (90, "add"), (91, "view")]]
EVENTS = pd.DataFrame({"sid": [r[0] for r in ROWS], "user": [r[1] for r in ROWS],
                       "ts": [at(r[2]) for r in ROWS], "action": [r[3] for r in ROWS],
                       "page": [PAGES[r[3]] for r in ROWS]}).iloc[::-1]  # physical order must not matter
USERS = pd.DataFrame({"user": ["U1", "U2"], "country": ["US", "IN"]})
CPU = {"R1": [50, 90, 95, 40, 85, None, 88], "R2": [85, 85, 70]}
READINGS = pd.DataFrame([(s, at(15 * i), v) for s, vals in CPU.items() for i, v in enumerate(vals)],
                        columns=["sensor_id", "ts", "cpu"])
US = EntityFilter(predicates=[Predicate(column="country", op="==", value="US")], table="users", key="user",
                  ref="user")


def ev(template, **kw):
    return QuerySpec(template=template, table="events", entity="sid", time="ts", **kw)


def rd(template, **kw):
    return QuerySpec(template=template, table="readings", entity="sensor_id", time="ts", **kw)


@pytest.fixture
def b(tiny):
    return tiny({"events": EVENTS, "users": USERS, "readings": READINGS})


# ---------------------------------------------------------------- avg_time_between
def test_avg_time_between_pairs_first_a_with_first_b_after_it(b):
    q = ev("avg_time_between", params={"a": VIEW, "b": ADD})
    # S1 0→3, S2 2→5 (its add at 0 precedes the view), S4 60→90, S3 has no add: (3 + 3 + 30) / 3 min
    assert b.answer(q) == pytest.approx((180 + 180 + 1800) / 3)
    # naive: each add with the latest view before it: S1 1→3, S2 2→5, S4 60→90 (S2's add at 0 has none)
    assert b.naive(q) == pytest.approx((120 + 180 + 1800) / 3)


def test_avg_time_between_window_selects_the_first_a(b):
    # first views at 0, 2, 10, 60: [00:02, 01:00) keeps S2 (start included) and S3 (no add); 60 excluded
    assert b.answer(ev("avg_time_between", window=w(2, 60), params={"a": VIEW, "b": ADD})) == 180.0
    assert b.answer(ev("avg_time_between", window=w(3, 61), params={"a": VIEW, "b": ADD})) == 1800.0
    assert b.answer(ev("avg_time_between", window=w(30, 59), params={"a": VIEW, "b": ADD})) is None


def test_avg_time_between_entity_filter(b):
    assert b.answer(ev("avg_time_between", entity_filter=US, params={"a": VIEW, "b": ADD})) == 180.0


# ---------------------------------------------------------------- sequence_match
def test_sequence_match_is_an_ordered_subsequence(b):
    assert b.answer(ev("sequence_match", params={"steps": [VIEW, ADD, CHECKOUT]})) == 2  # S1, S2; S4 lacks checkout
    assert b.answer(ev("sequence_match", params={"steps": [ADD, VIEW, CHECKOUT, PURCHASE]})) == 1  # S1
    q = ev("sequence_match", params={"steps": [CHECKOUT, VIEW]})
    assert b.answer(q) == 1  # S1 (7 → 8); S2 has no view after its checkout (21)
    assert b.naive(q) == 2  # S1 and S2 have both, in some order


def test_sequence_match_repeated_steps_need_distinct_rows(b):
    q = ev("sequence_match", params={"steps": [VIEW, VIEW, VIEW]})
    assert b.answer(q) == 1  # only S1 has three views
    assert b.naive(q) == 4
    # add_to_cart and the cart page are the same row: the cart page must come on a later row (S2: 0 → 5)
    assert b.answer(ev("sequence_match", params={"steps": [ADD, CART_PAGE]})) == 1


def test_sequence_match_counts_only_events_in_the_window(b):
    # [00:02, 00:30): S1 keeps 3 add, 4 view, ... (no add after a view); S2 keeps 2 view, 5 add, 21 checkout
    assert b.answer(ev("sequence_match", window=w(2, 30), params={"steps": [VIEW, ADD, CHECKOUT]})) == 1
    assert b.answer(ev("sequence_match", window=w(1, 30), params={"steps": [VIEW, ADD, CHECKOUT]})) == 2
    assert b.answer(ev("sequence_match", window=w(2, 21), params={"steps": [VIEW, ADD, CHECKOUT]})) == 0


# ---------------------------------------------------------------- count_after_trigger
def test_count_after_trigger_horizon_is_inclusive(b):
    q = ev("count_after_trigger", params={"x": VIEW, "y": ADD, "horizon_s": 120})
    # S1 add 3 → view 4 (6, 8 too late); S2 add 0 → view 2 (exactly 2 min); add 5 → view 20 too late; S4 90 → 91
    assert b.answer(q) == 3
    assert b.naive(q) == 9  # views of S1 (5), S2 (2), S4 (2): sessions that ever added
    assert b.answer(ev("count_after_trigger", params={"x": VIEW, "y": ADD, "horizon_s": 60})) == 2


def test_count_after_trigger_window_on_x_and_trigger_before_window(b):
    # X in [00:03, 00:10): S1 view 4 (1 min after add 3); 6 and 8 are too late
    assert b.answer(ev("count_after_trigger", window=w(3, 10), params={"x": VIEW, "y": ADD, "horizon_s": 120})) == 1
    # [00:02, 00:10) adds S2's view at 2, whose add (00:00) is before the window
    assert b.answer(ev("count_after_trigger", window=w(2, 10), params={"x": VIEW, "y": ADD, "horizon_s": 120})) == 2


def test_count_after_trigger_needs_a_strictly_earlier_row(b):
    # an add row is also a cart-page row, but the same row is not "after" itself
    assert b.answer(ev("count_after_trigger", params={"x": CART_PAGE, "y": ADD, "horizon_s": 600})) == 1  # S2 0→5


# ---------------------------------------------------------------- conversion_rate
def test_conversion_rate_counts_entities_converting_after_their_first_a(b):
    q = ev("conversion_rate", params={"a": VIEW, "b": CHECKOUT})
    assert b.answer(q) == 50.0  # S1, S2 of S1..S4
    q = ev("conversion_rate", params={"a": CHECKOUT, "b": VIEW})
    assert b.answer(q) == 50.0  # S1 views after its checkout, S2 does not
    assert b.naive(q) == pytest.approx(100 * 11 / 2)  # 11 view rows / 2 checkout rows
    assert b.answer(ev("conversion_rate", params={"a": ADD, "b": CHECKOUT})) == pytest.approx(200 / 3)  # S1, S2 / +S4


def test_conversion_rate_window_on_first_a(b):
    assert b.answer(ev("conversion_rate", window=w(0, 5), params={"a": VIEW, "b": CHECKOUT})) == 100.0  # S1, S2
    assert b.answer(ev("conversion_rate", window=w(5, 120), params={"a": VIEW, "b": CHECKOUT})) == 0.0  # S3, S4
    assert b.answer(ev("conversion_rate", window=w(100, 120), params={"a": VIEW, "b": CHECKOUT})) is None


# ---------------------------------------------------------------- count_in_state
def test_count_in_state_views_while_cart_open(b):
    q = ev("count_in_state", params={"x": VIEW, "open": ADD, "close": CHECKOUT})
    # S1 open 3..7: views 4, 6; S2 open 0..21: views 2, 20; S3 never opens; S4 open 90..end: view 91
    assert b.answer(q) == 5
    assert b.naive(q) == 9
    assert b.answer(ev("count_in_state", params={"x": VIEW, "open": ADD, "close": None})) == 6  # + S1's view 8
    # the closing row itself is outside the period
    assert b.answer(ev("count_in_state", params={"x": CHECKOUT, "open": ADD, "close": CHECKOUT})) == 0


def test_count_in_state_window_on_x(b):
    q = ev("count_in_state", window=w(5, 120), params={"x": VIEW, "open": ADD, "close": CHECKOUT})
    assert b.answer(q) == 3  # S1 6, S2 20, S4 91


def test_count_in_state_predicated_on_readings(b):
    # open at the first cpu > 80 reading, close at the first cpu < 45 after it; count readings with cpu > 86
    q = rd("count_in_state", params={"x": {"column": "cpu", "op": ">", "value": 86}, "open": HOT,
                                     "close": {"column": "cpu", "op": "<", "value": 45}})
    assert b.answer(q) == 1  # R1 opens 00:15, closes 00:45: 95 at 00:30 (90 is the opening row); R2 never closes: none


# ---------------------------------------------------------------- state_reached
def test_state_reached_counts_entries_not_rows(b):
    q = ev("state_reached", window=w(1, 5), params={"state": {"column": "action"}, "value": "view"})
    assert b.answer(q) == 2  # S1 re-enters at 4 (its view at 1 continues the run from 0), S2 enters at 2
    assert b.naive(q) == 3  # view rows at 1, 2, 4
    q = ev("state_reached", window=w(5, 20), params={"state": {"column": "action"}, "value": "view"})
    assert b.answer(q) == 2  # S1 at 8, S3 at 10 and 12; S2's entry at 20 is at the excluded end


def test_state_reached_null_is_a_state_of_its_own(b):
    # S3: view 10, <null> 11, view 12: the view at 12 starts a new episode
    q = ev("state_reached", window=w(12, 13), params={"state": {"column": "action"}, "value": "view"})
    assert b.answer(q) == 1


def test_state_reached_predicated_first_row_enters(b):
    q = rd("state_reached", params={"state": {"predicate": HOT}, "value": "in"})
    assert b.answer(q) == 2  # R2 enters at its first reading
    q = rd("state_reached", window=w(15, 90), params={"state": {"predicate": HOT}, "value": "in"})
    assert b.answer(q) == 1  # R1 enters at 00:15 and 01:00 (01:30 excluded); R2 entered at 00:00
    assert b.naive(q) == 4  # in-rows R1 00:15, 00:30, 01:00 and R2 00:15


# ---------------------------------------------------------------- alternating_count
def test_alternating_count_round_trips(b):
    q = rd("alternating_count", params={"state": {"predicate": HOT}, "a": "out", "b": "in"})
    # R1 episodes out in out in out(null) in: trips at 00:15 and 01:00; the last "in" never returns
    assert b.answer(q) == 2
    assert b.naive(q) == 3  # out→in transitions
    q = rd("alternating_count", window=w(30, 120), params={"state": {"predicate": HOT}, "a": "out", "b": "in"})
    assert b.answer(q) == 1  # the trip leaving at 01:00
    q = rd("alternating_count", window=w(15, 30), params={"state": {"predicate": HOT}, "a": "out", "b": "in"})
    assert b.answer(q) == 1  # leaves at 00:15; the run goes on past the window end and returns at 00:45
    q = rd("alternating_count", window=w(90, 120), params={"state": {"predicate": HOT}, "a": "out", "b": "in"})
    assert b.answer(q) == 0  # leaves at 01:30 and never returns
    assert b.naive(q) == 1


def test_alternating_count_entities_with_at_least_k(b):
    q = rd("alternating_count", params={"state": {"predicate": HOT}, "a": "out", "b": "in", "k": 3})
    assert b.answer(q) == 0
    assert b.naive(q) == 1  # R1 has 3 out→in transitions
    q = rd("alternating_count", params={"state": {"predicate": HOT}, "a": "out", "b": "in", "k": 2})
    assert b.answer(q) == 1


def test_alternating_count_on_a_visible_column(b):
    q = ev("alternating_count", params={"state": {"column": "action"}, "a": "view", "b": "checkout"})
    assert b.answer(q) == 1  # S1 view 4-6, checkout 7, view 8; S2's checkout is its last row
    assert b.naive(q) == 2


# ---------------------------------------------------------------- cross_window_delta
def test_cross_window_delta_entries(b):
    q = ev("cross_window_delta", window=w(5, 15),
           params={"measure": "entries", "state": {"column": "action"}, "value": "view", "offset_s": 300})
    # view entries: S1 0 4 8, S2 2 20, S3 10 12, S4 60 91; later [5,15): 8 10 12 = 3; earlier [0,10): 0 4 8 2 = 4
    assert b.answer(q) == -1.0
    assert b.naive(q) == -2.0  # view rows: later 6 8 10 12 = 4; earlier 0 1 4 6 8 2 = 6


def test_cross_window_delta_events_and_mean(b):
    q = ev("cross_window_delta", window=w(5, 15), params={"measure": "events", "event": ADD, "offset_s": 300})
    assert b.answer(q) == -2.0  # adds: later S2 5 = 1; earlier S1 3, S2 0, S2 5 = 3
    assert b.naive(q) == 2.0
    q = rd("cross_window_delta", window=w(30, 60), params={"measure": "mean", "key": "cpu", "offset_s": 1800})
    assert b.answer(q) == pytest.approx((95 + 40 + 70) / 3 - (50 + 90 + 85 + 85) / 4)
    q = rd("cross_window_delta", window=w(60, 90), params={"measure": "mean", "key": "cpu", "offset_s": 3600})
    assert b.answer(q) == pytest.approx(85 - 77.5)  # the null reading at 01:15 is skipped


# ---------------------------------------------------------------- spec checks
def test_unused_spec_parts_are_rejected(b):
    from tools.queries.registry import load_templates

    q = ev("count_in_state", event_filter=[Predicate(column="page", op="==", value="cart")],
           params={"x": VIEW, "open": ADD, "close": CHECKOUT})
    t = load_templates()["count_in_state"]
    with pytest.raises(ValueError):
        t.sql(q)
    with pytest.raises(ValueError):
        t.reference(b.frames, q)

