"""top_k_by_aggregate on a hand-made table: rankings computed by hand, both executors, ties dropped."""

import pandas as pd
import pytest

from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window

# per host: values -> mean / sum / max
#   E1: 10, 20        -> 15   / 30 / 20
#   E2: 30            -> 30   / 30 / 30
#   E3: 12, null, 13  -> 12.5 / 25 / 13
#   E4: 40, 2         -> 21   / 42 / 40
#   E5: null          -> (no value: never ranked)
#   E6: 5, 6, 7       -> 6    / 18 / 7
#   E7: 12.504        -> 12.504
ROWS = [("E1", "x", 10.0, "00:00"), ("E1", "x", 20.0, "01:00"), ("E2", "x", 30.0, "00:00"),
        ("E3", "y", 12.0, "00:00"), ("E3", "y", None, "01:00"), ("E3", "y", 13.0, "02:00"),
        ("E4", "y", 40.0, "00:00"), ("E4", "y", 2.0, "01:00"), ("E5", "y", None, "00:00"),
        ("E6", "z", 5.0, "00:00"), ("E6", "z", 6.0, "01:00"), ("E6", "z", 7.0, "02:00"),
        ("E7", "z", 12.504, "00:00")]
METRICS = pd.DataFrame({"host": [r[0] for r in ROWS], "grp": [r[1] for r in ROWS], "v": [r[2] for r in ROWS],
                        "timestamp": [f"2026-01-01T{r[3]}Z" for r in ROWS]})


def q(**params):
    kw = {k: params.pop(k) for k in ("window", "event_filter", "entity_filter") if k in params}
    params.setdefault("key", "v")
    return QuerySpec(template="top_k_by_aggregate", table="metrics", entity="host", time="timestamp",
                     params=params, **kw)


@pytest.fixture
def b(tiny):
    return tiny({"metrics": METRICS})


def test_top_k_by_mean_descending_and_ascending(b):
    # desc: E2 30, E4 21, E1 15 | next E3 12.5 (gap 2.5: no tie at the cut)
    assert b.answer(q(agg="mean", k=3, order="desc", decimals=2)) == [["E2", 30.0], ["E4", 21.0], ["E1", 15.0]]
    # asc: E6 6, E3 12.5, E7 12.504 -> 12.5 and 12.504 are 0.004 apart: a tie at 2 decimals -> dropped
    assert b.answer(q(agg="mean", k=3, order="asc", decimals=2)) is None
    # ... but not at 3 decimals (next: E1 15)
    assert b.answer(q(agg="mean", k=3, order="asc", decimals=3)) == [["E6", 6.0], ["E3", 12.5], ["E7", 12.504]]
    # the tie also matters inside the head and at the cut: k=1 asc is E6 (next E3, gap 6.5)
    assert b.answer(q(agg="mean", k=1, order="asc", decimals=2)) == [["E6", 6.0]]
    # k=2 asc: E6, E3 | next E7 within 0.01 of E3 -> ambiguous cut -> None
    assert b.answer(q(agg="mean", k=2, order="asc", decimals=2)) is None


def test_top_k_by_sum_and_max(b):
    # sums: E4 42, E1 30, E2 30 (tie inside the top 3 -> None); top 1 is E4 (next 30)
    assert b.answer(q(agg="sum", k=3, decimals=0)) is None
    assert b.answer(q(agg="sum", k=1, decimals=0)) == [["E4", 42.0]]
    # max: E4 40, E2 30 | next E1 20
    assert b.answer(q(agg="max", k=2, decimals=2)) == [["E4", 40.0], ["E2", 30.0]]


def test_top_k_by_count_of_matching_rows(b):
    # rows with v > 10: E1 1 (20), E2 1, E3 2 (12, 13), E4 1 (40), E7 1 (12.504)
    big = [Predicate(column="v", op=">", value=10.0)]
    assert b.answer(q(agg="count", k=1, decimals=0, event_filter=big)) == [["E3", 2]]
    assert b.answer(q(agg="count", k=2, decimals=0, event_filter=big)) is None  # four hosts tie at 1


def test_top_k_window_and_entity_filter(b):
    # [01:00, 03:00): E1 20, E3 13 (null skipped), E4 2, E6 6.5 (6, 7) -> desc E1 20, E3 13, E6 6.5 | E4 2
    win = Window(start="2026-01-01T01:00:00Z", end="2026-01-01T03:00:00Z")
    assert b.answer(q(agg="mean", k=3, decimals=2, window=win)) == [["E1", 20.0], ["E3", 13.0], ["E6", 6.5]]
    # group y: E3 12.5, E4 21, E5 no value -> only two ranked hosts: fewer than k=3 -> None
    y = EntityFilter(predicates=[Predicate(column="grp", op="==", value="y")])
    assert b.answer(q(agg="mean", k=3, decimals=2, entity_filter=y)) is None
    assert b.answer(q(agg="mean", k=2, decimals=2, entity_filter=y)) == [["E4", 21.0], ["E3", 12.5]]
