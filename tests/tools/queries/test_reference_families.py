"""One question per shape / detection / forecast / claim / premise template on the public telecom
reference tables (cell sites with incidents, core nodes), answered by both executors and checked
against a plain-Python computation written from the CSV rows (no pandas, no numpy, no SQL)."""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from datetime import datetime

import duckdb
import pandas as pd
import pytest

from tests.tools.queries.test_reference_ecommerce import REF
from tools.queries.answers import agree, canonical
from tools.queries.registry import load_templates
from tools.queries.spec import QuerySpec, Window

CELLS, CORE = REF / "cell_site_with_inc_data.csv", REF / "core_node_data.csv"
DAY1 = Window(start="2026-01-01T00:00:00Z", end="2026-01-02T00:00:00Z")
DAY2 = Window(start="2026-01-02T00:00:00Z", end="2026-01-03T00:00:00Z")
CUT = datetime.fromisoformat("2026-01-02T00:00:00+00:00")


def rows(path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def series(path, entity: str, key: str, window: Window) -> dict[str, list[float]]:
    """Plain Python: each entity's values in the window, in time order."""
    s, e = datetime.fromisoformat(window.start), datetime.fromisoformat(window.end)
    out: dict[str, list] = defaultdict(list)
    for r in rows(path):
        t = datetime.fromisoformat(r["Timestamp"])
        if s <= t < e and r[key] != "":
            out[r[entity]].append((t, float(r[key])))
    return {k: [v for _t, v in sorted(x)] for k, x in out.items()}


def cell(template, **kw) -> QuerySpec:
    return QuerySpec(template=template, table="cell_site", entity="Cell_ID", time="Timestamp", **kw)


def answer(b, q: QuerySpec):
    """Both executors' answer (they must agree); the SQL one reads holdout/ through file_search_path."""
    t = load_templates()[q.template]
    a = canonical(t.reference(b.frames, q), t.type_of(q))
    con = duckdb.connect(str(b.root / "data.duckdb"), read_only=True)
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"SET file_search_path = '{b.root}'")
    row = con.execute(t.sql(q)).fetchone()
    con.close()
    s = canonical(None if row is None else row[0], t.type_of(q))
    assert agree(a, s), f"pandas {a!r} != SQL {s!r}"
    return a


@pytest.fixture(scope="module")
def b(tmp_path_factory):
    """The cell sites and core nodes; the core nodes' second day held back in holdout/."""
    from tests.tools.queries.conftest import TinyBundle

    core, cells = pd.read_csv(CORE), pd.read_csv(CELLS)
    for df in (core, cells):
        df["Timestamp"] = pd.to_datetime(df["Timestamp"], utc=True)
    root = tmp_path_factory.mktemp("ref-families")
    bundle = TinyBundle(root, {"cell_site": cells, "core_node": core[core["Timestamp"] < CUT]})
    (root / "holdout").mkdir()
    core[core["Timestamp"] >= CUT].to_parquet(root / "holdout" / "core_node.parquet", index=False)
    return bundle


def lower_median(x: list[float]) -> float:
    return sorted(x)[(len(x) - 1) // 2]


def run_lengths(flags: list[bool]) -> list[int]:
    out, n = [], 0
    for f in [*flags, False]:
        if f:
            n += 1
        elif n:
            out.append(n)
            n = 0
    return out


def test_spike(b):
    q = cell("shape_spike", window=DAY1, params={"key": "Cell_Availability", "width": 3, "mult": 4.45})
    want = []
    for e, x in series(CELLS, "Cell_ID", "Cell_Availability", DAY1).items():
        med = lower_median(x)
        mad = lower_median([abs(v - med) for v in x])
        if any(n <= 3 for n in run_lengths([v > med + 4.45 * mad for v in x])):
            want.append(e)
    assert answer(b, q) == sorted(want) and want


def test_rise(b):
    q = cell("shape_rise", window=DAY1, params={"key": "DL_PRB_Utilization", "lag": 4, "min_len": 3, "delta": 8.0})
    want = [e for e, x in series(CELLS, "Cell_ID", "DL_PRB_Utilization", DAY1).items()
            if any(n >= 3 for n in run_lengths([x[i] - x[i - 4] > 8.0 for i in range(4, len(x))]))]
    assert answer(b, q) == sorted(want) and want


def test_plateau(b):
    q = cell("shape_plateau", window=DAY1, params={"key": "RRC_ConnEstabFail", "min_len": 4})
    want = [e for e, x in series(CELLS, "Cell_ID", "RRC_ConnEstabFail", DAY1).items()
            if any(n >= 3 for n in run_lengths([x[i] == x[i - 1] for i in range(1, len(x))]))]
    assert answer(b, q) == sorted(want) and want


def test_oscillation(b):
    q = cell("shape_oscillation", window=DAY1, params={"key": "Cell_Availability", "rate_pct": 50})
    want = []
    for e, x in series(CELLS, "Cell_ID", "Cell_Availability", DAY1).items():
        med = lower_median(x)
        signs = [1 if v > med else -1 for v in x if v != med]
        changes = sum(a != c for a, c in zip(signs, signs[1:], strict=False))
        if len(signs) >= 3 and 100 * changes >= 50 * (len(signs) - 1):
            want.append(e)
    assert answer(b, q) == sorted(want) and want


def test_level_shift(b):
    q = cell("shape_level_shift", window=DAY1, params={"key": "DL_PRB_Utilization", "span": 4, "delta": 5.0})
    want = []
    for e, x in series(CELLS, "Cell_ID", "DL_PRB_Utilization", DAY1).items():
        for i in range(4, len(x) - 3):
            before, after = x[i - 4:i], x[i:i + 4]
            if min(after) > max(before) + 5.0 or max(after) < min(before) - 5.0:
                want.append(e)
                break
    assert answer(b, q) == sorted(want) and want


def _flags(key: str, pct: int) -> dict[str, int]:
    ref = series(CELLS, "Cell_ID", key, DAY1)
    thr = {e: sorted(x)[max(0, math.ceil(len(x) * (pct / 100)) - 1)] for e, x in ref.items()}
    return {e: sum(v > thr[e] for v in x) for e, x in series(CELLS, "Cell_ID", key, DAY2).items() if e in thr}


def test_detect_entities(b):
    q = cell("detect_entities", window=DAY2, params={"key": "RRC_ConnEstabAtt", "pct": 99, "min_count": 2,
                                                    "ref": DAY1.model_dump()})
    want = sorted(e for e, n in _flags("RRC_ConnEstabAtt", 99).items() if n > 2)
    assert answer(b, q) == want and want
    pooled = load_templates()["detect_entities"].naive(b.frames, q)
    assert pooled != want  # one threshold for all cells is another answer


def test_detect_count(b):
    q = cell("detect_count", window=DAY2, params={"key": "DL_PRB_Utilization", "pct": 95, "ref": DAY1.model_dump()})
    assert answer(b, q) == sum(_flags("DL_PRB_Utilization", 95).values()) > 0


def test_claim_every_cell(b):
    q = cell("claim_check", window=DAY1, params={"kind": "every", "key": "DL_PRB_Utilization", "op": ">",
                                                "value": 60})
    s = series(CELLS, "Cell_ID", "DL_PRB_Utilization", DAY1)
    want = all(any(v > 60 for v in x) for x in s.values())
    assert answer(b, q) is want
    q2 = q.model_copy(update={"params": {**q.params, "kind": "mean"}})
    vals = [v for x in s.values() for v in x]
    assert answer(b, q2) is (sum(vals) / len(vals) > 60)


def test_false_premise_no_such_cell_and_no_such_event(b):
    ids = {r["Cell_ID"] for r in rows(CELLS)}
    q = cell("false_premise", window=DAY1, params={"kind": "entity", "id": "CELL_100", "key": "DL_PRB_Utilization",
                                                  "noun": "cell site", "day": "1 January 2026"})
    assert "CELL_100" not in ids
    assert answer(b, q) == "false premise: there is no cell site CELL_100 in the data"
    lowest = min(min(x) for x in series(CELLS, "Cell_ID", "Cell_Availability", DAY1).values())
    ev = {"column": "Cell_Availability", "op": "<", "value": math.floor(lowest) - 1}
    q = cell("false_premise", window=DAY1, params={"kind": "event", "id": "CELL_7", "key": "Cell_Availability",
                                                  "event": ev, "day": "1 January 2026"})
    assert answer(b, q).startswith("false premise: CELL_7 has no row with Cell_Availability <")
    real = cell("false_premise", window=DAY1, params={"kind": "entity", "id": "CELL_7", "key": "Cell_Availability"})
    assert answer(b, real) is None  # CELL_7 exists: no false premise


def test_unanswerable_missing_column(b):
    headers = set(rows(CELLS)[0]) | set(rows(CORE)[0])
    q = cell("unanswerable", window=DAY1, params={"kind": "column", "missing": "humidity", "key": None})
    assert not any("humidity" in h.lower() for h in headers)
    assert answer(b, q) == "unanswerable: the data has no humidity column"
    q = cell("unanswerable", window=DAY1, params={"kind": "column", "missing": "availability", "key": None})
    assert answer(b, q) is None  # Cell_Availability is there: the question can be answered


def core(template, **kw) -> QuerySpec:
    return QuerySpec(template=template, table="core_node", entity="Core_Node_ID", time="Timestamp", **kw)


def test_forecast_mean_is_checked_on_the_held_back_day(b):
    q = core("forecast_mean", window=DAY2, params={"key": "CPU_Load", "id": "MME_001"})
    day2 = series(CORE, "Core_Node_ID", "CPU_Load", DAY2)["MME_001"]
    day1 = series(CORE, "Core_Node_ID", "CPU_Load", DAY1)["MME_001"]
    assert answer(b, q) == pytest.approx(sum(day2) / len(day2), rel=1e-12)
    naive = load_templates()["forecast_mean"].naive(b.frames, q)
    assert naive == pytest.approx(sum(day1) / len(day1), rel=1e-12)  # seasonal naive: the day before again
    assert b.frames.table("core_node")["Timestamp"].max() < pd.Timestamp(CUT)  # visible data stop at the cut


def test_forecast_count(b):
    q = core("forecast_count", window=DAY2, params={"pred": {"column": "CPU_Load", "op": ">", "value": 70}})
    want = sum(1 for x in series(CORE, "Core_Node_ID", "CPU_Load", DAY2).values() for v in x if v > 70)
    assert answer(b, q) == want > 0
