"""State-machine templates on a hand-made periodic-ish table: answers computed by hand, both executors.

Minutes after 2026-01-01 00:00 UTC and each sensor's episodes (state [start, end)):

S1 (EN-100, zone A): ok[0,10) warn[10,30) crit[30,40) maint[40,50) ok[50,60) warn[60,70) ok[70, open)
S2 (EN-200, zone B): ok[0,15) warn[15,30) maint[30,60) ok[60, open)
S3 (EN-100, zone B): warn[0,40) ok[40,60) crit[60, open)

temp of S1 (S2, S3 stay at 20): 20, 31, 35, null, 32, 20, 20, 20 → predicate temp > 30 gives
out[0,10) in[10,30) out[30,40) (null is out) in[40,50) out[50, open).
"""

import duckdb
import pandas as pd
import pytest

from tools.queries.answers import agree, canonical
from tools.queries.registry import load_templates
from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window

MIN = 60.0
ROWS = [  # sensor, minute, state, temp
    ("S1", 0, "ok", 20.0), ("S1", 10, "warn", 31.0), ("S1", 20, "warn", 35.0), ("S1", 30, "crit", None),
    ("S1", 40, "maint", 32.0), ("S1", 50, "ok", 20.0), ("S1", 60, "warn", 20.0), ("S1", 70, "ok", 20.0),
    ("S2", 0, "ok", 20.0), ("S2", 15, "warn", 20.0), ("S2", 30, "maint", 20.0), ("S2", 45, "maint", 20.0),
    ("S2", 60, "ok", 20.0),
    ("S3", 0, "warn", 20.0), ("S3", 20, "warn", 20.0), ("S3", 40, "ok", 20.0), ("S3", 60, "crit", 20.0),
]
ZONE = {"S1": "A", "S2": "B", "S3": "B"}
T0 = pd.Timestamp("2026-01-01T00:00:00Z")
STATE = {"column": "device_state"}
HOT = {"predicate": {"column": "temp", "op": ">", "value": 30.0}}


def _readings() -> pd.DataFrame:
    rows = ROWS[::-1]  # physical order must not matter
    return pd.DataFrame({
        "sensor_id": [r[0] for r in rows], "zone": [ZONE[r[0]] for r in rows],
        "device_state": [r[2] for r in rows], "temp": [r[3] for r in rows],
        "timestamp": [(T0 + pd.Timedelta(minutes=r[1])).isoformat() for r in rows],
    })


@pytest.fixture
def b(tiny):
    sensors = pd.DataFrame({"sensor_id": ["S1", "S2", "S3"], "model": ["EN-100", "EN-200", "EN-100"]})
    return tiny({"readings": _readings(), "sensors": sensors})


def q(template, state=STATE, **kw):
    params = {"state": state, **kw.pop("params", {})}
    return QuerySpec(template=template, table="readings", entity="sensor_id", time="timestamp", params=params, **kw)


def win(a: int, z: int) -> Window:
    """Minutes ``a`` to ``z`` after T0."""
    return Window(start=(T0 + pd.Timedelta(minutes=a)).isoformat(), end=(T0 + pd.Timedelta(minutes=z)).isoformat())


def both(b, spec: QuerySpec, answer_type: str):
    """Both executors with an explicit answer type (grouped durations are mappings)."""
    t = load_templates()[spec.template]
    a = canonical(t.reference(b.frames, spec), answer_type)
    con = duckdb.connect(str(b.root / "data.duckdb"), read_only=True)
    row = con.execute(t.sql(spec)).fetchone()
    con.close()
    s = canonical(row[0], answer_type)
    assert agree(a, s), f"pandas {a!r} != SQL {s!r}"
    return a


# ---------------------------------------------------------------- state_duration
def test_state_duration_mean_of_completed_episodes(b):
    # warn episodes: S1 20 + S1 10 + S2 15 + S3 40 = 85 min over 4 episodes
    assert b.answer(q("state_duration", params={"value": "warn"})) == pytest.approx(85 / 4 * MIN)
    # naive: per-sensor total time on warn rows, S1 30, S2 15, S3 40 → 85/3 min
    assert b.naive(q("state_duration", params={"value": "warn"})) == pytest.approx(85 / 3 * MIN)


def test_state_duration_open_episode_left_out(b):
    # crit: S1 [30,40) = 10 min; S3's crit from 60 is open → excluded
    assert b.answer(q("state_duration", params={"value": "crit"})) == pytest.approx(10 * MIN)
    # naive: S1 10 min, S3 0 (its crit row is the last row) → 5 min
    assert b.naive(q("state_duration", params={"value": "crit"})) == pytest.approx(5 * MIN)


def test_state_duration_ending_in_a_given_state(b):
    assert b.answer(q("state_duration", params={"value": "warn", "to": "crit"})) == pytest.approx(20 * MIN)
    # warn → ok: S1 [60,70) 10 min and S3 [0,40) 40 min
    assert b.answer(q("state_duration", params={"value": "warn", "to": "ok"})) == pytest.approx(25 * MIN)


def test_state_duration_window_selects_episode_starts_half_open(b):
    # starts in [10, 60): S1 warn@10 (20 min), S2 warn@15 (15 min); S3@0 before, S1@60 at the excluded end
    got = b.answer(q("state_duration", window=win(10, 60), params={"value": "warn"}))
    assert got == pytest.approx(17.5 * MIN)
    # [10, 15): S2's episode starts at the excluded end; S1's (10 → 30) ends after the window, counted in full
    assert b.answer(q("state_duration", window=win(10, 15), params={"value": "warn"})) == pytest.approx(20 * MIN)


def test_state_duration_predicated_state_null_is_out(b):
    # temp > 30 on S1: in[10,30) 20 min, in[40,50) 10 min (the null reading at 30 ends the first one)
    assert b.answer(q("state_duration", state=HOT, params={"value": "in"})) == pytest.approx(15 * MIN)


def test_state_duration_grouped_by_row_and_static_attributes(b):
    # zone A: S1 20, 10 → 15 min; zone B: S2 15, S3 40 → 27.5 min
    got = both(b, q("state_duration", group_by="zone", params={"value": "warn"}), "mapping")
    assert got == pytest.approx({"A": 15 * MIN, "B": 27.5 * MIN})
    # model via sensors: EN-100 = S1 20, 10 and S3 40 → 70/3 min; EN-200 = S2 15 min
    via = {"table": "sensors", "key": "sensor_id", "ref": "sensor_id"}
    got = both(b, q("state_duration", group_by="model", params={"value": "warn", "group_via": via}), "mapping")
    assert got == pytest.approx({"EN-100": 70 / 3 * MIN, "EN-200": 15 * MIN})


# ---------------------------------------------------------------- first_passage_time
def test_first_passage_time(b):
    # crit: S1 0 → 30, S3 0 → 60; S2 never reaches it → (30 + 60) / 2 min
    assert b.answer(q("first_passage_time", params={"value": "crit"})) == pytest.approx(45 * MIN)
    # naive counts S2 with its whole span (60 min): (30 + 60 + 60) / 3
    assert b.naive(q("first_passage_time", params={"value": "crit"})) == pytest.approx(50 * MIN)
    # warn: S1 10, S2 15, S3 already in warn at its first row → 0
    assert b.answer(q("first_passage_time", params={"value": "warn"})) == pytest.approx(25 / 3 * MIN)


def test_first_passage_time_window_on_first_rows(b):
    assert b.answer(q("first_passage_time", window=win(0, 1), params={"value": "crit"})) == pytest.approx(45 * MIN)
    assert b.answer(q("first_passage_time", window=win(1, 90), params={"value": "crit"})) is None


# ---------------------------------------------------------------- transition_counts
def test_transition_counts(b):
    # out of warn: S1 → crit (at 30), → ok (at 70); S2 → maint (at 30); S3 → ok (at 40)
    assert b.answer(q("transition_counts", params={"value": "warn"})) == {"crit": 1, "maint": 1, "ok": 2}
    # naive row pairs: S1 warn→warn, warn→crit, warn→ok; S2 warn→maint; S3 warn→warn, warn→ok
    assert b.naive(q("transition_counts", params={"value": "warn"})) == {"crit": 1, "maint": 1, "ok": 2, "warn": 2}


def test_transition_counts_window_on_transition_time(b):
    # transitions at 30, 70, 30, 40: [30, 70) drops S1's warn → ok at 70
    got = b.answer(q("transition_counts", window=win(30, 70), params={"value": "warn"}))
    assert got == {"crit": 1, "maint": 1, "ok": 1}
    assert b.answer(q("transition_counts", window=win(71, 90), params={"value": "warn"})) is None


# ---------------------------------------------------------------- revisit_count
def test_revisit_count(b):
    # warn episodes: S1 two (10, 60), S2 one, S3 one spanning two rows
    assert b.answer(q("revisit_count", params={"value": "warn"})) == 1
    assert b.naive(q("revisit_count", params={"value": "warn"})) == 2  # S1 and S3 have ≥ 2 warn rows
    # S1's second episode starts at 60, the excluded end of [0, 60)
    assert b.answer(q("revisit_count", window=win(0, 60), params={"value": "warn"})) == 0
    assert b.answer(q("revisit_count", window=win(10, 61), params={"value": "warn"})) == 1
    assert b.answer(q("revisit_count", state=HOT, params={"value": "in"})) == 1  # S1: in@10, in@40


def test_revisit_count_entity_filter_static_table(b):
    ef = EntityFilter(predicates=[Predicate(column="model", op="==", value="EN-200")], table="sensors",
                      key="sensor_id", ref="sensor_id")
    assert b.answer(q("revisit_count", entity_filter=ef, params={"value": "warn"})) == 0
    assert b.answer(q("revisit_count", entity_filter=ef, params={"value": "maint"})) == 0  # S2: one 2-row episode
    assert b.naive(q("revisit_count", entity_filter=ef, params={"value": "maint"})) == 1


# ---------------------------------------------------------------- threshold_without_outcome
def test_threshold_without_outcome_horizon_end_included(b):
    # entries into warn and the next ok: S1 10 → 50 (40 min), S1 60 → 70 (10), S2 15 → 60 (45), S3 0 → 40 (40)
    p = {"value": "warn", "outcome": "ok"}
    assert b.answer(q("threshold_without_outcome", params={**p, "horizon_s": 20 * MIN})) == 3
    assert b.answer(q("threshold_without_outcome", params={**p, "horizon_s": 40 * MIN})) == 1  # S2 only
    assert b.answer(q("threshold_without_outcome", params={**p, "horizon_s": 40 * MIN - 1})) == 3
    # naive: sensors with a warn row and never ok → none
    assert b.naive(q("threshold_without_outcome", params={**p, "horizon_s": 40 * MIN})) == 0


def test_threshold_without_outcome_window_selects_entries(b):
    p = {"value": "warn", "outcome": "ok", "horizon_s": 20 * MIN}
    assert b.answer(q("threshold_without_outcome", window=win(30, 120), params=p)) == 0  # S1@60 reaches ok
    assert b.answer(q("threshold_without_outcome", window=win(0, 15), params=p)) == 2  # S1@10, S3@0


def test_threshold_without_outcome_other_state(b):
    # entries into warn; outcome: a reading with temp > 30 from the entry up to 10 min later
    # S1@10 has temp 31 at the entry itself (included) → reached; S1@60 (20, then 20) → miss; S2, S3 never hot
    p = {"value": "warn", "outcome_state": HOT, "outcome": "in", "horizon_s": 10 * MIN}
    assert b.answer(q("threshold_without_outcome", params=p)) == 3
    assert b.answer(q("threshold_without_outcome", window=win(0, 30), params=p)) == 2  # S2, S3
    assert b.naive(q("threshold_without_outcome", params=p)) == 2  # S2, S3 never hot at all


def test_while_and_event_filters_are_refused(b):
    t = load_templates()["state_duration"]
    bad = q("state_duration", event_filter=[Predicate(column="temp", op=">", value=1.0)], params={"value": "warn"})
    with pytest.raises(ValueError):
        t.sql(bad)
    with pytest.raises(ValueError):
        t.reference(b.frames, bad)


def test_windowed_queries_see_rows_outside_the_window(b):
    """The SQL side sorts only the rows a window needs; these answers depend on rows just outside."""
    # the warn row at 20 continues S1's episode from 10 (before the window): not a new start
    assert b.answer(q("revisit_count", window=win(20, 61), params={"value": "warn"})) == 0
    # transition at 70 out of the warn episode that started at 60, before [70, 71)
    assert b.answer(q("transition_counts", window=win(70, 71), params={"value": "warn"})) == {"ok": 1}
    # S1's warn episode from 60 ends at 70 by entering ok, after the window [60, 65)
    assert b.answer(q("state_duration", window=win(60, 65), params={"value": "warn", "to": "ok"})) == 10 * MIN
    assert b.answer(q("state_duration", window=win(60, 65), params={"value": "warn", "to": "crit"})) is None
    # entries in [0, 15): S1@10 reaches ok at 50 and S3@0 at 40, both 40 min later, after the window end
    p = {"value": "warn", "outcome": "ok"}
    assert b.answer(q("threshold_without_outcome", window=win(0, 15), params={**p, "horizon_s": 40 * MIN})) == 0
    assert b.answer(q("threshold_without_outcome", window=win(0, 15), params={**p, "horizon_s": 40 * MIN - 1})) == 2
