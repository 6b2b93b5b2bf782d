"""Issue 19's incident variants on the public telecom tables with an injected incident (RTR_001/eth0
degrades on 2 January 00:00-06:15; the 19 cells it serves lose availability): a baseline over another
population (peers in the same window, the whole fleet the day before) and affected counts by a numeric
threshold. Answers from both executors (they must agree) against plain Python over the CSV rows (no
pandas, no SQL), and the naive readings against their own plain-Python figures."""

from __future__ import annotations

import csv
from datetime import datetime

import pandas as pd
import pytest

from tests.reference_data import reference_dir
from tests.tools.queries.conftest import TinyBundle
from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window

REF = reference_dir()
OUTAGE = Window(start="2026-01-02T00:00:00Z", end="2026-01-02T06:15:00Z")
DAY_BEFORE = Window(start="2026-01-01T00:00:00Z", end="2026-01-01T06:15:00Z")
FILES = {"cell_site": "cell_site_with_inc_data.csv", "transport_link": "transport_link_with_inc_data.csv",
         "core_node": "core_node_with_inc_data.csv"}


def csv_rows(table: str) -> list[dict]:
    with (REF / FILES[table]).open(newline="") as f:
        return list(csv.DictReader(f))


def inside(r: dict, w: Window | None) -> bool:
    t = datetime.fromisoformat(r["Timestamp"])
    return w is None or datetime.fromisoformat(w.start) <= t < datetime.fromisoformat(w.end)


def mean_of(rows: list[dict], key: str) -> float:
    v = [float(r[key]) for r in rows if r[key] != ""]
    return sum(v) / len(v)


CELLS = csv_rows("cell_site")
SERVED = sorted({r["Cell_ID"] for r in CELLS if (r["Transport_Device_ID"], r["Transport_Interface_ID"]) ==
                 ("RTR_001", "eth0")})
AFFECTED = EntityFilter(predicates=[Predicate(column="Cell_ID", op="in", value=SERVED)])
OTHERS = {"predicates": [{"column": "Cell_ID", "op": "not_in", "value": SERVED}]}


def spec(table: str, entity: str, template: str, **kw) -> QuerySpec:
    return QuerySpec(template=template, table=table, entity=entity, time="Timestamp", **kw)


@pytest.fixture(scope="module")
def b(tmp_path_factory):
    tables = {}
    for name, f in FILES.items():
        df = pd.read_csv(REF / f)
        df["Timestamp"] = pd.to_datetime(df["Timestamp"], utc=True)
        tables[name] = df
    return TinyBundle(tmp_path_factory.mktemp("incident-pop") / "b", tables)


def test_the_served_cells_are_the_19_of_the_public_readme():
    assert len(SERVED) == 19 and len({r["Cell_ID"] for r in CELLS}) == 100


def test_affected_cells_against_their_peers_in_the_same_window(b):
    q = spec("cell_site", "Cell_ID", "incident_vs_baseline", window=OUTAGE, entity_filter=AFFECTED, params={
        "key": "Cell_Availability", "agg": "mean", "direction": "down", "figure": "difference",
        "baseline": {"start": OUTAGE.start, "end": OUTAGE.end}, "baseline_entities": OTHERS})
    win = [r for r in CELLS if inside(r, OUTAGE)]
    mine = mean_of([r for r in win if r["Cell_ID"] in SERVED], "Cell_Availability")
    peers = mean_of([r for r in win if r["Cell_ID"] not in SERVED], "Cell_Availability")
    everyone = mean_of(win, "Cell_Availability")
    got = b.answer(q)
    assert got["value"] is True and got["difference"] == pytest.approx(mine - peers, rel=1e-9)
    assert -2.6 < got["difference"] < -2.4  # the outage: about 97.0 against 99.5
    naive = b.naive(q)  # the affected cells left in their own baseline
    assert naive["difference"] == pytest.approx(mine - everyone, rel=1e-9)
    assert abs(naive["difference"] - got["difference"]) > 0.3


def test_affected_cells_against_the_whole_fleet_the_day_before(b):
    q = spec("cell_site", "Cell_ID", "incident_vs_baseline", window=OUTAGE, entity_filter=AFFECTED, params={
        "key": "RRC_ConnEstabFail", "agg": "mean", "direction": "up", "figure": "ratio",
        "baseline": {"start": DAY_BEFORE.start, "end": DAY_BEFORE.end}, "baseline_entities": "all"})
    mine = mean_of([r for r in CELLS if inside(r, OUTAGE) and r["Cell_ID"] in SERVED], "RRC_ConnEstabFail")
    fleet = mean_of([r for r in CELLS if inside(r, DAY_BEFORE)], "RRC_ConnEstabFail")
    own = mean_of([r for r in CELLS if inside(r, DAY_BEFORE) and r["Cell_ID"] in SERVED], "RRC_ConnEstabFail")
    got = b.answer(q)
    assert got == {"value": True, "ratio": pytest.approx(mine / fleet, rel=1e-9)}
    assert got["ratio"] != pytest.approx(mine / own, rel=1e-3)  # the fleet is not the cells' own history
    naive = b.naive(q)  # the reference period ignored: every cell during the outage
    everyone = mean_of([r for r in CELLS if inside(r, OUTAGE)], "RRC_ConnEstabFail")
    assert naive["ratio"] == pytest.approx(mine / everyone, rel=1e-9) and naive["ratio"] < got["ratio"] - 0.5


def test_a_baseline_population_of_a_sub_population_with_a_zero_free_figure(b):
    # the other cells of base station eNB_001 (an attribute written on the rows), same window
    f = {"predicates": [{"column": "Base_Station_ID", "op": "==", "value": "eNB_001"},
                        {"column": "Cell_ID", "op": "not_in", "value": SERVED}]}
    q = spec("cell_site", "Cell_ID", "incident_vs_baseline", window=OUTAGE, entity_filter=AFFECTED, params={
        "key": "Cell_Availability", "agg": "min", "direction": "down", "figure": "ratio",
        "baseline": {"start": OUTAGE.start, "end": OUTAGE.end}, "baseline_entities": f})
    win = [r for r in CELLS if inside(r, OUTAGE)]
    lo = min(float(r["Cell_Availability"]) for r in win if r["Cell_ID"] in SERVED)
    peers = min(float(r["Cell_Availability"]) for r in win
                if r["Base_Station_ID"] == "eNB_001" and r["Cell_ID"] not in SERVED)
    assert b.answer(q) == {"value": lo < peers, "ratio": pytest.approx(lo / peers, rel=1e-9)}


def _count(rows: list[dict], entity: str, key: str, hit, w: Window | None) -> int:
    return len({r[entity] for r in rows if inside(r, w) and r[key] != "" and hit(float(r[key]))})


def test_cells_with_availability_below_99_during_the_outage(b):
    q = spec("cell_site", "Cell_ID", "incident_affected_count", window=OUTAGE,
             params={"key": "Cell_Availability", "rule": "threshold", "op": "<", "value": 99})
    want = _count(CELLS, "Cell_ID", "Cell_Availability", lambda v: v < 99, OUTAGE)
    assert b.answer(q) == want == 21  # the 19 served cells and 2 others dipping below 99
    assert b.naive(q) == _count(CELLS, "Cell_ID", "Cell_Availability", lambda v: v < 99, None) == 42
    # negative control: the unaffected cells in the same window; contrast: the same hours the day before
    others = q.model_copy(update={"entity_filter": EntityFilter.model_validate(OTHERS)})
    assert b.answer(others) == len({r["Cell_ID"] for r in CELLS if inside(r, OUTAGE) and r["Cell_ID"] not in SERVED
                                    and float(r["Cell_Availability"]) < 99}) == 2
    before = q.model_copy(update={"window": DAY_BEFORE})
    assert b.answer(before) == _count(CELLS, "Cell_ID", "Cell_Availability", lambda v: v < 99, DAY_BEFORE)
    assert b.answer(before) < 21


def test_inclusive_thresholds_on_a_count_key_and_on_other_tables(b):
    q = spec("cell_site", "Cell_ID", "incident_affected_count", window=OUTAGE,
             params={"key": "RRC_ConnEstabFail", "rule": "threshold", "op": ">=", "value": 20})
    want = _count(CELLS, "Cell_ID", "RRC_ConnEstabFail", lambda v: v >= 20, OUTAGE)
    assert b.answer(q) == want and 0 < want < 100
    assert b.naive(q) == _count(CELLS, "Cell_ID", "RRC_ConnEstabFail", lambda v: v >= 20, None) > want
    links = csv_rows("transport_link")
    q = spec("transport_link", "Device_ID", "incident_affected_count", window=OUTAGE,
             params={"key": "Packet_Loss_Percent", "rule": "threshold", "op": ">", "value": 1.0})
    assert b.answer(q) == _count(links, "Device_ID", "Packet_Loss_Percent", lambda v: v > 1.0, OUTAGE) >= 1
    core = csv_rows("core_node")
    q = spec("core_node", "Core_Node_ID", "incident_affected_count", window=Window(
        start="2026-01-02T00:00:00Z", end="2026-01-02T06:00:00Z"),
        params={"key": "CPU_Load", "rule": "threshold", "op": "<=", "value": 50})
    want = _count(core, "Core_Node_ID", "CPU_Load", lambda v: v <= 50, q.window)
    assert b.answer(q) == want


def test_existing_rules_keep_no_naive_reading(b):
    """The variants' naive readings leave the templates' other questions without one (records unchanged)."""
    from tools.queries.registry import load_templates

    t = load_templates()
    q = spec("cell_site", "Cell_ID", "incident_affected_count", window=OUTAGE, entity_filter=None, params={
        "key": "Cell_Availability", "agg": "mean", "rule": "shift", "direction": "down", "n": 3, "baseline": None})
    assert t["incident_affected_count"].naive(b.frames, q) is None
    v = spec("cell_site", "Cell_ID", "incident_vs_baseline", window=OUTAGE, entity_filter=AFFECTED, params={
        "key": "Cell_Availability", "agg": "mean", "direction": "down", "figure": "ratio",
        "baseline": {"start": DAY_BEFORE.start, "end": DAY_BEFORE.end}})
    assert t["incident_vs_baseline"].naive(b.frames, v) is None
    assert b.answer(v)["ratio"] == pytest.approx(
        mean_of([r for r in CELLS if inside(r, OUTAGE) and r["Cell_ID"] in SERVED], "Cell_Availability")
        / mean_of([r for r in CELLS if inside(r, DAY_BEFORE) and r["Cell_ID"] in SERVED], "Cell_Availability"))


def test_pick_threshold_never_counts_none_or_all_nor_the_naive_count():
    from tools.queries.templates.incident_pop import pick_threshold

    window = [99.4, 99.3, 97.1, 96.8, None]  # two entities dip during the window, one has no reading in it
    whole = [98.0, 99.1, 96.5, 96.0, 95.0]  # over all data the first and the last dip too
    op, v, n = pick_threshold(window, whole, up=False, target=2, integer=False)
    assert (op, n) == ("<", 2) and 97.1 < v < 99.3 and sum(x is not None and x < v for x in whole) != 2
    # a split equal to the whole-data count (the window filters nothing) is not offered
    assert pick_threshold([10, 1], [10, 1], up=True, target=1, integer=True) is None
    op, v, n = pick_threshold([3, 9, 12], [13, 13, 12], up=True, target=1, integer=True)
    assert op in (">", ">=") and v == int(v) and n in (1, 2)
