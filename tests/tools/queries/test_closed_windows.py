"""Closed windows as a suite convention (issue 19): both executors count a row at the window's end when
the window is closed (plain Python on the reference tables says the same), and a spec whose query plan
asks for closed windows gets a suite stating it once, with every period closed; the default stays
half-open."""

from __future__ import annotations

import csv
import json
from collections import Counter
from datetime import datetime

import pandas as pd
import pytest

from tests.reference_data import reference_dir
from tools.queries.closed import CLOSED_OK
from tools.queries.spec import QuerySpec, Window

REF = reference_dir()
CELLS = REF / "cell_site_data.csv"
END = "2026-01-01T12:00:00Z"  # a reading time of every cell: closed and half-open differ


def _cells_q(template: str, closed: bool, **kw) -> QuerySpec:
    return QuerySpec(template=template, table="cell_site", entity="Cell_ID", time="Timestamp",
                     window=Window(start="2026-01-01T06:00:00Z", end=END, closed=closed), **kw)


@pytest.mark.parametrize("closed", [False, True])
def test_both_executors_include_the_end_of_a_closed_window(tiny, closed):
    df = pd.read_csv(CELLS)
    df["Timestamp"] = pd.to_datetime(df["Timestamp"], utc=True)
    b = tiny({"cell_site": df})
    lo, hi = datetime.fromisoformat("2026-01-01T06:00:00+00:00"), datetime.fromisoformat(END)
    rows, per = 0, Counter()
    with CELLS.open(newline="") as f:
        for r in csv.DictReader(f):
            t = datetime.fromisoformat(r["Timestamp"])
            if lo <= t and (t <= hi if closed else t < hi) and int(r["RRC_ConnEstabFail"]) > 15:
                rows += 1
                per[r["Cell_ID"]] += 1
    fails = {"column": "RRC_ConnEstabFail", "op": ">", "value": 15}
    assert b.answer(_cells_q("event_count", closed, event_filter=[fails])) == rows
    assert b.answer(_cells_q("entity_count_threshold", closed, event_filter=[fails], params={"n": 12})) == \
        sum(c > 12 for c in per.values())


def test_a_closed_plan_gives_a_closed_suite_and_says_so(tmp_path):
    from knowledge.packs import load_pack
    from tools.generate import generate_bundle
    from tools.queries.suite import build_suite

    spec = load_pack("iot")
    closed = spec.model_copy(update={"query_plan": spec.query_plan.model_copy(update={"windows": "closed"})})
    generate_bundle(closed, tmp_path / "b", scale=0.2, force=True)
    build_suite(tmp_path / "b", n=36)
    header = json.loads((tmp_path / "b" / "suite.json").read_text())
    assert header["window_bounds"] == "closed" and "includes both A and B (closed)" in header["preamble"]
    recs = [json.loads(x) for x in (tmp_path / "b" / "qa.jsonl").read_text().splitlines()]
    windowed = [r for r in recs if (r["params"] or {}).get("window")]
    assert windowed and all(r["params"]["window"]["closed"] is True and r["template"] in CLOSED_OK for r in windowed)
    assert all("(excluded)" not in r.get("precise_question", "") for r in windowed)


def test_the_default_plan_stays_half_open():
    from knowledge.packs import load_pack
    from tools.queries.catalog import build_catalog
    from tools.queries.conventions import suite_header

    header = suite_header(build_catalog(load_pack("iot")), 2026)
    assert header["window_bounds"] == "half-open" and "excludes B (half-open)" in header["preamble"]
    assert "closed" not in QuerySpec(template="event_count", table="t", entity="e", time="ts",
                                     window=Window(start="2026-01-01T00:00:00Z", end=END)).to_json()["window"]
