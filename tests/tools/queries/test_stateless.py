"""Stateless count templates on hand-made tables: answers computed by hand, both executors.

event_count, distinct_count, event_rate and exists (aggregates: test_stateless_agg.py, rankings:
test_stateless_rank.py).
"""

import pandas as pd
import pytest

from tools.queries.registry import load_templates
from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window

READINGS = pd.DataFrame({
    "sensor_id": ["S1", "S1", "S1", "S2", "S2", "S3"],
    "zone": ["A", "A", "A", "B", "B", "A"],
    "device_state": ["ok", "warning", "ok", "warning", "warning", "ok"],
    "temp": [20.0, 31.0, 22.0, 35.0, None, 18.0],
    "timestamp": ["2026-01-01T00:00Z", "2026-01-01T00:15Z", "2026-01-01T00:30Z",
                  "2026-01-01T00:00Z", "2026-01-01T00:15Z", "2026-01-01T01:00Z"],
})
SENSORS = pd.DataFrame({"sensor_id": ["S1", "S2", "S3"], "firmware": ["v1", "v2", "v1"]})

# An event log: sessions of users (users.country is reached through sessions.user_id).
SESSIONS = pd.DataFrame({
    "session_id": ["A1", "A1", "A1", "A1", "A2", "A2", "B1", "B1", "B1", "B1", "C1", "C1"],
    "user_id": ["U1", "U1", "U1", "U1", "U1", "U1", "U2", "U2", "U2", "U2", "U3", "U3"],
    "referrer": ["email"] * 4 + ["social"] * 2 + ["email"] * 4 + ["direct"] * 2,
    "page": ["homepage", "product", "cart", "purchase", "homepage", "product",
             "homepage", "product", "product", "exit", "homepage", "exit"],
    "timestamp": ["2026-01-01T10:00Z", "2026-01-01T10:05Z", "2026-01-01T10:07Z", "2026-01-01T10:20Z",
                  "2026-01-01T11:00Z", "2026-01-01T11:10Z", "2026-01-01T10:30Z", "2026-01-01T10:31Z",
                  "2026-01-01T10:40Z", "2026-01-01T11:59Z", "2026-01-01T12:00Z", "2026-01-01T12:01Z"],
})
USERS = pd.DataFrame({"user_id": ["U1", "U2", "U3"], "country": ["US", "SG", "US"]})

# Per-interval counters (failed_logins is summable; H2 has a null).
ACTIVITY = pd.DataFrame({
    "host_id": ["H1", "H1", "H1", "H2", "H2", "H3"],
    "role": ["server", "server", "server", "workstation", "workstation", "workstation"],
    "failed_logins": [2, 0, 5, None, 1, 4],
    "timestamp": ["2026-01-01T00:00Z", "2026-01-01T00:15Z", "2026-01-01T00:30Z",
                  "2026-01-01T00:00Z", "2026-01-01T00:15Z", "2026-01-01T00:45Z"],
})

US = EntityFilter(predicates=[Predicate(column="country", op="==", value="US")], table="users",
                  key="user_id", ref="user_id")
PRODUCT = [Predicate(column="page", op="==", value="product")]


def q(template, **kw):
    return QuerySpec(template=template, table="readings", entity="sensor_id", time="timestamp", **kw)


def qs(template, **kw):
    return QuerySpec(template=template, table="sessions", entity="session_id", time="timestamp", **kw)


def qa(template, **kw):
    return QuerySpec(template=template, table="activity", entity="host_id", time="timestamp", **kw)


def w(start, end):
    return Window(start=f"2026-01-01T{start}:00Z", end=f"2026-01-01T{end}:00Z")


@pytest.fixture
def b(tiny):
    return tiny({"readings": READINGS, "sensors": SENSORS, "sessions": SESSIONS, "users": USERS,
                 "activity": ACTIVITY})


def test_event_count_window_is_half_open(b):
    assert b.answer(q("event_count", window=w("00:15", "01:00"))) == 3  # 00:15 x2, 00:30; 01:00 excluded
    warn = [Predicate(column="device_state", op="==", value="warning")]
    assert b.answer(q("event_count", window=w("00:15", "01:00"), event_filter=warn)) == 2


def test_entity_filter_through_static_table(b):
    ef = EntityFilter(predicates=[Predicate(column="firmware", op="==", value="v1")], table="sensors",
                      key="sensor_id", ref="sensor_id")
    assert b.answer(q("event_count", entity_filter=ef)) == 4  # S1 x3 + S3
    assert b.answer(q("distinct_count", entity_filter=ef)) == 2


def test_distinct_count_counts_entities_not_rows(b):
    warn = [Predicate(column="device_state", op="==", value="warning")]
    assert b.answer(q("distinct_count", event_filter=warn)) == 2


def test_event_count_on_an_event_log(b):
    # product events in [10:00, 12:00): A1 10:05, A2 11:10, B1 10:31, B1 10:40
    assert b.answer(qs("event_count", event_filter=PRODUCT, window=w("10:00", "12:00"))) == 4
    # 11:10 is the end bound: excluded
    assert b.answer(qs("event_count", event_filter=PRODUCT, window=w("10:00", "11:10"))) == 3
    # users in the US: U1 (A1, A2) and U3 (no product event) -> A1 10:05, A2 11:10
    assert b.answer(qs("event_count", event_filter=PRODUCT, window=w("10:00", "12:00"), entity_filter=US)) == 2
    # page 'cart' or 'purchase': A1 10:07 and 10:20
    cart_or_buy = [Predicate(column="page", op="in", value=["cart", "purchase"])]
    assert b.answer(qs("event_count", event_filter=cart_or_buy)) == 2
    # a session attribute on the rows: referrer 'email' -> A1, B1 -> 10:05, 10:31, 10:40
    email = EntityFilter(predicates=[Predicate(column="referrer", op="==", value="email")])
    assert b.answer(qs("event_count", event_filter=PRODUCT, window=w("10:00", "12:00"), entity_filter=email)) == 3


def test_distinct_count_of_a_parent_entity(b):
    # sessions with a product event: A1, A2, B1 -> 3; their users: U1, U2 -> 2
    assert b.answer(qs("distinct_count", event_filter=PRODUCT, window=w("10:00", "12:00"))) == 3
    assert b.answer(qs("distinct_count", event_filter=PRODUCT, window=w("10:00", "12:00"),
                       params={"of": "user_id"})) == 2
    assert b.answer(qs("distinct_count", event_filter=PRODUCT, window=w("10:00", "12:00"), entity_filter=US,
                       params={"of": "user_id"})) == 1  # U1 only


def test_event_rate_counts_rows_per_hour_of_window(b):
    # 4 product events in a 2-hour window -> 2.0 per hour
    assert b.answer(qs("event_rate", event_filter=PRODUCT, window=w("10:00", "12:00"))) == pytest.approx(2.0)
    # rows with failed_logins > 0 in [00:00, 01:00): H1 2, H1 5, H2 1, H3 4 -> 4 per hour
    pos = [Predicate(column="failed_logins", op=">", value=0)]
    assert b.answer(qa("event_rate", event_filter=pos, window=w("00:00", "01:00"))) == pytest.approx(4.0)
    # 3 matching readings in 45 minutes -> 4.0 per hour (H3 00:45 excluded)
    assert b.answer(qa("event_rate", event_filter=pos, window=w("00:00", "00:45"))) == pytest.approx(4.0)


def test_event_rate_of_a_summed_counter_skips_nulls(b):
    # [00:00, 00:30): H1 2 + H1 0 + H2 null + H2 1 = 3 in half an hour -> 6.0 per hour
    assert b.answer(qa("event_rate", window=w("00:00", "00:30"), params={"key": "failed_logins"})) == \
        pytest.approx(6.0)
    # whole hour: 2 + 0 + 5 + 1 + 4 = 12; workstations only: 1 + 4 = 5
    assert b.answer(qa("event_rate", window=w("00:00", "01:00"), params={"key": "failed_logins"})) == \
        pytest.approx(12.0)
    ws = EntityFilter(predicates=[Predicate(column="role", op="==", value="workstation")])
    assert b.answer(qa("event_rate", window=w("00:00", "01:00"), entity_filter=ws,
                       params={"key": "failed_logins"})) == pytest.approx(5.0)
    # nothing in the window: a rate of 0 in both executors (not null)
    assert b.answer(qa("event_rate", window=w("05:00", "06:00"), params={"key": "failed_logins"})) == 0.0


def test_event_rate_needs_a_window(b):
    t = load_templates()["event_rate"]
    with pytest.raises(ValueError):
        t.sql(qa("event_rate"))
    with pytest.raises(ValueError):
        t.reference(b.frames, qa("event_rate"))


def test_exists_yes_and_no_at_the_window_bounds(b):
    warn = [Predicate(column="device_state", op="==", value="warning")]
    assert b.answer(q("exists", event_filter=warn, window=w("00:15", "01:00"))) is True  # S1 00:15 included
    assert b.answer(q("exists", event_filter=warn, window=w("00:30", "01:00"))) is False  # only ok rows left
    ok = [Predicate(column="device_state", op="==", value="ok")]
    assert b.answer(q("exists", event_filter=ok, window=w("00:45", "01:00"))) is False  # S3 01:00 excluded


def test_exists_with_entity_filter_and_nulls(b):
    hot = [Predicate(column="temp", op=">", value=32.0)]
    assert b.answer(q("exists", event_filter=hot)) is True  # S2 35.0
    v1 = EntityFilter(predicates=[Predicate(column="firmware", op="==", value="v1")], table="sensors",
                      key="sensor_id", ref="sensor_id")
    assert b.answer(q("exists", event_filter=hot, entity_filter=v1)) is False  # S1 max 31, S3 18
    # S2's only reading in [00:15, 00:30) has a null temp: a null never satisfies temp > 0
    zone_b = EntityFilter(predicates=[Predicate(column="zone", op="==", value="B")])
    warm = [Predicate(column="temp", op=">", value=0.0)]
    assert b.answer(q("exists", event_filter=warm, entity_filter=zone_b, window=w("00:15", "00:30"))) is False
