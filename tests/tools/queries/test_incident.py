"""Incident templates on hand-made tables: answers computed by hand, through both executors.

Table ``m`` (15-minute readings, t0 = 00:00 ... t5 = 01:15 on 1 January 2026):

    dev  zone   x:  t0  t1  t2  t3  t4    t5     n: t0..t5
    A    cold       1   2   3   10  12    2         0 0 0 5 7 0
    B    cold       2   2   2   2   None  2         1 1 1 1 1 1
    C    warm       5   1   5   1   5     1         0 0 0 0 0 0

Incident window W = [00:45, 01:15) → t3, t4; baseline window B = [00:00, 00:30) → t0, t1.
"""

import math

import pandas as pd
import pytest

from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window

T = [f"2026-01-01T{h:02d}:{m:02d}Z" for h, m in ((0, 0), (0, 15), (0, 30), (0, 45), (1, 0), (1, 15))]
X = {"A": [1, 2, 3, 10, 12, 2], "B": [2, 2, 2, 2, None, 2], "C": [5, 1, 5, 1, 5, 1]}
N = {"A": [0, 0, 0, 5, 7, 0], "B": [1] * 6, "C": [0] * 6}
M = pd.DataFrame({
    "dev": [d for d in "ABC" for _ in T], "zone": [z for z in ("cold", "cold", "warm") for _ in T],
    "x": [v for d in "ABC" for v in X[d]], "n": [v for d in "ABC" for v in N[d]], "ts": T * 3})
DEVS = pd.DataFrame({"dev": ["A", "B", "C"], "tier": ["t1", "t2", "t1"]})
W = Window(start="2026-01-01T00:45:00Z", end="2026-01-01T01:15:00Z")
BASE = {"start": "2026-01-01T00:00:00Z", "end": "2026-01-01T00:30:00Z"}


def q(template, **kw):
    return QuerySpec(template=template, table="m", entity="dev", time="ts", **kw)


def ids(*xs, op="in"):
    return EntityFilter(predicates=[Predicate(column="dev", op=op, value=list(xs))])


def win(a, b):
    return Window(start=f"2026-01-01T{a}:00Z", end=f"2026-01-01T{b}:00Z")


@pytest.fixture
def b(tiny):
    return tiny({"m": M, "devs": DEVS})


def test_kpi_aggregates_over_the_population_in_the_window(b):
    assert b.answer(q("incident_kpi", window=W, entity_filter=ids("A"), params={"key": "x", "agg": "mean"})) == 11
    # not A: B (2, null) and C (1, 5) → (2 + 1 + 5) / 3
    got = b.answer(q("incident_kpi", window=W, entity_filter=ids("A", op="not_in"), params={"key": "x", "agg": "mean"}))
    assert got == pytest.approx(8 / 3)
    assert b.answer(q("incident_kpi", window=W, params={"key": "n", "agg": "sum"})) == 14  # 5+7 + 1+1 + 0+0
    assert b.answer(q("incident_kpi", window=W, entity_filter=ids("A"), params={"key": "x", "agg": "std"})) == \
        pytest.approx(math.sqrt(2))  # sample std of 10, 12
    assert b.answer(q("incident_kpi", window=W, entity_filter=ids("C"), params={"key": "x", "agg": "range"})) == 4


def test_kpi_counts_rows_nulls_and_entities(b):
    hot = [Predicate(column="x", op=">", value=4)]
    assert b.answer(q("incident_kpi", window=W, event_filter=hot, params={"agg": "rows"})) == 3  # A 10, 12; C 5
    assert b.answer(q("incident_kpi", window=W, event_filter=hot, params={"agg": "entities"})) == 2  # A, C
    assert b.answer(q("incident_kpi", window=W, params={"key": "x", "agg": "nulls"})) == 1  # B at t4
    # B alone has one value in W: no range, no std; an empty population has no mean
    assert b.answer(q("incident_kpi", window=W, entity_filter=ids("B"), params={"key": "x", "agg": "range"})) is None
    assert b.answer(q("incident_kpi", window=W, entity_filter=ids("Z"), params={"key": "x", "agg": "mean"})) is None


def test_cross_entity_through_a_static_table(b):
    tier1 = EntityFilter(predicates=[Predicate(column="tier", op="==", value="t1")], table="devs", key="dev", ref="dev")
    # A (10, 12) and C (1, 5) → 28 / 4
    assert b.answer(q("incident_cross_entity", window=W, entity_filter=tier1, params={"key": "x", "agg": "mean"})) == 7


def test_exists_per_entity_uses_whole_clock_hours(b):
    p = {"key": "x", "agg": "mean", "op": ">", "value": 6, "per": "entity"}
    # hour 00: A (1+2+3+10)/4 = 4, B 2, C 3 → none above 6
    assert b.answer(q("incident_exists", window=win("00:00", "01:00"), params=p)) is False
    # hour 01: A (12+2)/2 = 7
    assert b.answer(q("incident_exists", window=win("00:00", "02:00"), params=p)) is True
    # [00:30, 01:30) holds no whole clock hour: A's 12 at 01:00 does not count
    assert b.answer(q("incident_exists", window=win("00:30", "01:30"), params=p)) is False


def test_exists_over_the_population_fills_empty_hours_with_zero(b):
    hot = [Predicate(column="x", op=">", value=4)]
    p = {"agg": "rows", "per": "all"}
    # rows with x > 4: hour 00 → A 10, C 5, C 5 = 3; hour 01 → A 12, C 5 = 2
    ge = {**p, "op": ">=", "value": 3}
    assert b.answer(q("incident_exists", window=win("00:00", "02:00"), event_filter=hot, params=ge)) is True
    ge4 = {**p, "op": ">=", "value": 4}
    assert b.answer(q("incident_exists", window=win("00:00", "02:00"), event_filter=hot, params=ge4)) is False
    zero = {**p, "op": "<=", "value": 0}
    assert b.answer(q("incident_exists", window=win("00:00", "02:00"), event_filter=hot, params=zero)) is False
    # hour 02 has no rows at all: it counts as 0
    assert b.answer(q("incident_exists", window=win("00:00", "03:00"), event_filter=hot, params=zero)) is True


def test_affected_count_shift_against_a_baseline_window(b):
    p = {"key": "x", "agg": "mean", "rule": "shift", "direction": "up", "n": 2, "baseline": BASE}
    # A: 11 - 1.5 = 9.5 > 2 * std(1, 2) = 1.41; B: 2 - 2 = 0 (std 0, not > 0); C: 3 - 3 = 0
    assert b.answer(q("incident_affected_count", window=W, params=p)) == 1
    down = {**p, "direction": "down", "n": 0.5}
    assert b.answer(q("incident_affected_count", window=W, params=down)) == 0
    # within zone 'cold' only A and B are judged
    cold = EntityFilter(predicates=[Predicate(column="zone", op="==", value="cold")])
    assert b.answer(q("incident_affected_count", window=W, entity_filter=cold, params=p)) == 1


def test_affected_count_against_the_rest_of_the_data(b):
    p = {"key": "x", "agg": "mean", "rule": "shift", "direction": "up", "n": 2, "baseline": None}
    # A: rest = 1, 2, 3, 2 → mean 2, std sqrt(2/3) = 0.82; 11 - 2 = 9 > 1.63. B: rest all 2 → std 0, 0 > 0 no.
    assert b.answer(q("incident_affected_count", window=W, params=p)) == 1
    # n = 12: A needs 9 > 12 * 0.82 = 9.8 → no
    assert b.answer(q("incident_affected_count", window=W, params={**p, "n": 12})) == 0


def test_affected_count_flat_needs_two_equal_values(b):
    p = {"key": "x", "agg": "mean", "rule": "flat"}
    # in W, B has a single non-null value (2, null): not counted
    assert b.answer(q("incident_affected_count", window=W, params=p)) == 0
    # t0..t2: B 2, 2, 2 is flat; A 1, 2, 3 and C 5, 1, 5 are not
    assert b.answer(q("incident_affected_count", window=win("00:00", "00:45"), params=p)) == 1


def test_top_k_ranks_and_breaks_ties_by_id(b):
    p = {"key": "x", "agg": "mean", "k": 2, "order": "desc"}
    assert b.answer(q("incident_top_k", window=W, params=p)) == [["A", 11.0], ["C", 3.0]]  # B: 2
    base = Window(start=BASE["start"], end=BASE["end"])
    s = {"key": "n", "agg": "sum", "k": 2}
    # sums over t0, t1: A 0, B 2, C 0 → ascending: A, C (tie by id); descending: B, then A before C
    assert b.answer(q("incident_top_k", window=base, params={**s, "order": "asc"})) == [["A", 0.0], ["C", 0.0]]
    assert b.answer(q("incident_top_k", window=base, params={**s, "order": "desc"})) == [["B", 2.0], ["A", 0.0]]
    assert b.answer(q("incident_top_k", window=W, entity_filter=ids("Z"), params=p)) is None


def test_worst_entity_against_its_own_baseline(b):
    p = {"key": "x", "agg": "mean", "order": "desc", "baseline": BASE}
    assert b.answer(q("incident_worst_entity", window=W, params=p)) == "A"  # 9.5 vs 0 and 0
    assert b.answer(q("incident_worst_entity", window=W, params={**p, "order": "asc"})) == "B"  # B, C tie at 0
    assert b.answer(q("incident_worst_entity", window=W, params={**p, "baseline": "rest"})) == "A"  # 9, 0, 0
    # no baseline, smallest range in W: A 2, C 4, B undefined (one value)
    rng = {"key": "x", "agg": "range", "order": "asc", "baseline": None}
    assert b.answer(q("incident_worst_entity", window=W, params=rng)) == "A"


def test_worst_entity_counts_zero_rows_as_zero(b):
    hot = [Predicate(column="x", op=">", value=4)]
    p = {"agg": "rows", "order": "desc", "baseline": BASE}
    # rows with x > 4: A in W 2, in B 0 → 2 (a window without rows counts 0); C 1 (t4) - 1 (t0) = 0;
    # B has no such row at all, so it is not ranked (entities are those with a row passing the event filter)
    assert b.answer(q("incident_worst_entity", window=W, event_filter=hot, params=p)) == "A"
    assert b.answer(q("incident_worst_entity", window=W, event_filter=hot, params={**p, "order": "asc"})) == "C"


def test_vs_baseline_ratio_and_difference(b):
    p = {"key": "x", "agg": "mean", "direction": "up", "baseline": BASE, "figure": "ratio"}
    got = b.answer(q("incident_vs_baseline", window=W, entity_filter=ids("A"), params=p))
    assert got == {"value": True, "ratio": pytest.approx(11 / 1.5)}
    got = b.answer(q("incident_vs_baseline", window=W, entity_filter=ids("A"), params={**p, "direction": "down"}))
    assert got == {"value": False, "ratio": pytest.approx(11 / 1.5)}
    got = b.answer(q("incident_vs_baseline", window=W, entity_filter=ids("A"), params={**p, "figure": "difference"}))
    assert got == {"value": True, "difference": pytest.approx(9.5)}
    # C: 3 against 3 → not higher, factor 1
    assert b.answer(q("incident_vs_baseline", window=W, entity_filter=ids("C"), params=p)) == \
        {"value": False, "ratio": 1.0}


def test_vs_baseline_zero_baseline_has_no_factor(b):
    p = {"key": "n", "agg": "sum", "direction": "up", "baseline": BASE, "figure": "ratio"}
    # A: 12 during W, 0 in the baseline
    assert b.answer(q("incident_vs_baseline", window=W, entity_filter=ids("A"), params=p)) == \
        {"value": True, "ratio": None}


def test_vs_baseline_window_edges_are_half_open(b):
    p = {"key": "x", "agg": "mean", "direction": "up", "figure": "difference",
         "baseline": {"start": "2026-01-01T00:15:00Z", "end": "2026-01-01T00:30:00Z"}}
    # W' = [01:00, 01:15) → A's 12 only; baseline [00:15, 00:30) → A's 2 only
    got = b.answer(q("incident_vs_baseline", window=win("01:00", "01:15"), entity_filter=ids("A"), params=p))
    assert got == {"value": True, "difference": 10.0}


def test_nice_between_picks_a_round_number_in_the_middle_half():
    from tools.queries.templates.incident_search import nice_between

    # coarsest step first (5, 2, 1 × 10^e from the span's magnitude down), nearest to the midpoint
    assert nice_between(12.3, 31.9) == 20  # middle half [17.2, 27.0]; 10 and 50 miss it, 20 (step 2e1) fits
    assert nice_between(0.52, 0.61) == 0.55  # middle half [0.5425, 0.5875]; step 0.05 → 0.55
    assert nice_between(600, 61_000_000) == 40_000_000  # middle half [15.3M, 45.8M]; 5e7 misses, 2e7 → 4e7
    assert nice_between(5, 5) is None and nice_between(6, 5) is None


def test_balanced_keeps_every_main_and_as_many_contrasts_in_turns():
    from tools.queries.registry import Candidate
    from tools.queries.templates.incident import balanced

    def c(i, contrast, variant=""):
        return Candidate(q("incident_kpi", params={"i": i}), hints={"variant": variant}, incident_id="inc",
                         contrast=contrast)

    pool = [c(0, False), c(1, True, "calm_key"), c(2, True, "calm_key"), c(3, True, "other_pop"), c(4, False)]
    got = [x.spec.params["i"] for x in balanced(lambda ctx: pool)(None)]
    assert got == [0, 4, 1, 3]  # mains, then one contrast of each kind in turn
    only = [c(1, True, "calm_key"), c(2, True, "other_pop")]
    assert [x.spec.params["i"] for x in balanced(lambda ctx: only)(None)] == [1]  # no main: one contrast
