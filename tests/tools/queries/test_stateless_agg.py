"""Stateless aggregates of one key on hand-made tables: answers computed by hand, both executors.

attribute_mean, attribute_std, attribute_percentile, attribute_extreme, conditional_aggregate
(with its naive reading) and group_aggregate.
"""

import math

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

# temps: S1 20, 31, 22 | S2 35, null | S3 18 -> non-null values sorted: 18, 20, 22, 31, 35 (mean 25.2)
V1 = EntityFilter(predicates=[Predicate(column="firmware", op="==", value="v1")], table="sensors",
                  key="sensor_id", ref="sensor_id")
WARN = Predicate(column="device_state", op="==", value="warning")
BY_FIRMWARE = {"group_table": "sensors", "group_key": "sensor_id", "group_ref": "sensor_id"}


def q(template, **kw):
    return QuerySpec(template=template, table="readings", entity="sensor_id", time="timestamp", **kw)


def w(start, end):
    return Window(start=f"2026-01-01T{start}:00Z", end=f"2026-01-01T{end}:00Z")


@pytest.fixture
def b(tiny):
    return tiny({"readings": READINGS, "sensors": SENSORS})


def test_attribute_mean_skips_nulls_and_numeric_predicates(b):
    assert b.answer(q("attribute_mean", params={"key": "temp"})) == pytest.approx((20 + 31 + 22 + 35 + 18) / 5)
    hot = [Predicate(column="temp", op=">", value=21.0)]
    assert b.answer(q("attribute_mean", event_filter=hot, params={"key": "temp"})) == pytest.approx(88 / 3)


def test_attribute_std_is_the_sample_deviation(b):
    # deviations from 25.2: -5.2, 5.8, -3.2, 9.8, -7.2; squares sum 218.8; / (5 - 1) = 54.7
    got = b.answer(q("attribute_std", params={"key": "temp"}))
    assert got == pytest.approx(math.sqrt(54.7))
    assert got != pytest.approx(math.sqrt(218.8 / 5))  # not the population deviation
    # zone A before 00:45 = S1: 20, 31, 22 -> mean 24.333; squares 18.778 + 44.444 + 5.444 = 206/3; / 2 = 103/3
    s1 = EntityFilter(predicates=[Predicate(column="zone", op="==", value="A")])
    assert b.answer(q("attribute_std", entity_filter=s1, window=w("00:00", "00:45"), params={"key": "temp"})) == \
        pytest.approx(math.sqrt(103 / 3))


def test_attribute_std_needs_two_values(b):
    # [00:15, 00:30): S1 31 and S2 null -> one value -> no answer in either executor
    assert b.answer(q("attribute_std", window=w("00:15", "00:30"), params={"key": "temp"})) is None
    assert b.answer(q("attribute_std", window=w("05:00", "06:00"), params={"key": "temp"})) is None


@pytest.mark.parametrize("p, expected", [
    (0.9, 33.4),   # rank 0.9 * 4 = 3.6 -> 31 + 0.6 * (35 - 31)
    (0.5, 22.0),   # rank 2 -> 22
    (0.1, 18.8),   # rank 0.4 -> 18 + 0.4 * (20 - 18); nearest-rank would say 18
    (0.25, 20.0),  # rank 1 -> 20
    (1.0, 35.0),
])
def test_attribute_percentile_interpolates_linearly(b, p, expected):
    assert b.answer(q("attribute_percentile", params={"key": "temp", "p": p})) == pytest.approx(expected)


def test_attribute_percentile_edge_cases(b):
    # a single value is every percentile of itself; no value -> None
    assert b.answer(q("attribute_percentile", window=w("01:00", "02:00"), params={"key": "temp", "p": 0.9})) == 18.0
    assert b.answer(q("attribute_percentile", window=w("05:00", "06:00"), params={"key": "temp", "p": 0.9})) is None
    t = load_templates()["attribute_percentile"]
    with pytest.raises(ValueError):
        t.sql(q("attribute_percentile", params={"key": "temp", "p": 90}))


def test_attribute_extreme(b):
    assert b.answer(q("attribute_extreme", params={"key": "temp", "agg": "max"})) == 35.0
    assert b.answer(q("attribute_extreme", params={"key": "temp", "agg": "min"})) == 18.0
    assert b.answer(q("attribute_extreme", entity_filter=V1, params={"key": "temp", "agg": "max"})) == 31.0
    # [00:00, 00:15): S1 20, S2 35 -> min 20; S2's null at 00:15 never counts
    assert b.answer(q("attribute_extreme", window=w("00:00", "00:15"), params={"key": "temp", "agg": "min"})) == 20.0
    zone_b = EntityFilter(predicates=[Predicate(column="zone", op="==", value="B")])
    assert b.answer(q("attribute_extreme", entity_filter=zone_b, window=w("00:15", "00:30"),
                      params={"key": "temp", "agg": "max"})) is None


def test_conditional_aggregate_and_its_naive_reading(b):
    # while warning: S1 31, S2 35, S2 null -> mean 33; ignoring the condition: 25.2
    c = q("conditional_aggregate", while_=WARN, params={"key": "temp", "agg": "mean"})
    assert b.answer(c) == pytest.approx(33.0)
    assert b.naive(c) == pytest.approx(25.2)
    # while temp > 21: 31 + 22 + 35 = 88
    hot = Predicate(column="temp", op=">", value=21.0)
    c = q("conditional_aggregate", while_=hot, params={"key": "temp", "agg": "sum"})
    assert b.answer(c) == pytest.approx(88.0)
    assert b.naive(c) == pytest.approx(126.0)
    # with a window: [00:15, 01:00) while warning -> S1 31 (S2 null) -> 31; naive 31 + 22 -> 26.5
    c = q("conditional_aggregate", while_=WARN, window=w("00:15", "01:00"), params={"key": "temp", "agg": "mean"})
    assert b.answer(c) == pytest.approx(31.0)
    assert b.naive(c) == pytest.approx(26.5)
    # nothing satisfies the condition -> None (both executors)
    cold = Predicate(column="temp", op="<", value=0.0)
    assert b.answer(q("conditional_aggregate", while_=cold, params={"key": "temp", "agg": "max"})) is None


def test_group_aggregate_by_row_attribute(b):
    got = b.answer(q("group_aggregate", group_by="zone", params={"key": "temp", "agg": "mean"}))
    assert got == pytest.approx({"A": (20 + 31 + 22 + 18) / 4, "B": 35.0})
    got = b.answer(q("group_aggregate", group_by="zone", params={"key": "temp", "agg": "sum"}))
    assert got == pytest.approx({"A": 91.0, "B": 35.0})


def test_group_aggregate_by_static_attribute(b):
    # firmware v1: S1 + S3 -> 20, 31, 22, 18 (mean 22.75); v2: S2 -> 35 (its null skipped)
    got = b.answer(q("group_aggregate", group_by="firmware", params={"key": "temp", "agg": "mean", **BY_FIRMWARE}))
    assert got == pytest.approx({"v1": 22.75, "v2": 35.0})
    got = b.answer(q("group_aggregate", group_by="firmware", params={"key": "temp", "agg": "max", **BY_FIRMWARE}))
    assert got == pytest.approx({"v1": 31.0, "v2": 35.0})


def test_group_aggregate_counts_rows_and_entities(b):
    # warning rows: S1 00:15 (v1), S2 00:00 and 00:15 (v2, one of them with a null temp: still a row)
    rows = b.answer(q("group_aggregate", group_by="firmware", event_filter=[WARN],
                      params={"agg": "count", **BY_FIRMWARE}))
    assert rows == {"v1": 1, "v2": 2}
    ents = b.answer(q("group_aggregate", group_by="firmware", event_filter=[WARN],
                      params={"agg": "distinct", **BY_FIRMWARE}))
    assert ents == {"v1": 1, "v2": 1}
    # count of a key counts its non-null values: v2 has one
    vals = b.answer(q("group_aggregate", group_by="firmware", event_filter=[WARN],
                      params={"key": "temp", "agg": "count", **BY_FIRMWARE}))
    assert vals == {"v1": 1, "v2": 1}
    # groups with no matching row are left out: in [00:30, 02:00) only v1 sensors had 'ok' rows
    ok = Predicate(column="device_state", op="==", value="ok")
    got = b.answer(q("group_aggregate", group_by="firmware", event_filter=[ok], window=w("00:30", "02:00"),
                     params={"agg": "count", **BY_FIRMWARE}))
    assert got == {"v1": 2}
    # nothing at all -> None in both executors
    assert b.answer(q("group_aggregate", group_by="zone", window=w("05:00", "06:00"),
                      params={"agg": "count"})) is None


def test_group_aggregate_drops_rows_without_a_group(tiny):
    # S4 is missing from the static table: its rows belong to no firmware group
    readings = pd.concat([READINGS, pd.DataFrame({
        "sensor_id": ["S4"], "zone": ["B"], "device_state": ["ok"], "temp": [99.0],
        "timestamp": ["2026-01-01T00:00Z"]})], ignore_index=True)
    b = tiny({"readings": readings, "sensors": SENSORS})
    got = b.answer(q("group_aggregate", group_by="firmware", params={"key": "temp", "agg": "max", **BY_FIRMWARE}))
    assert got == pytest.approx({"v1": 31.0, "v2": 35.0})
    got = b.answer(q("group_aggregate", group_by="zone", params={"key": "temp", "agg": "max"}))
    assert got == pytest.approx({"A": 31.0, "B": 99.0})
