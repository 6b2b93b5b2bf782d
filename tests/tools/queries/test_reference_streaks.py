"""Issue 19's per-entity count thresholds "within T" and "without Y in between" (``entity_count_streak``)
on the public reference tables: both executors agree with plain-Python loops over the CSV rows, and the
naive reading (the clause dropped) differs."""

from __future__ import annotations

import csv
from collections import defaultdict
from datetime import datetime, timedelta

import pandas as pd
import pytest

from tests.reference_data import reference_dir
from tools.queries.spec import QuerySpec, Window

REF = reference_dir()
CELLS, SESSIONS = REF / "cell_site_data.csv", REF / "ecommerce_sessions_data.csv"
W = Window(start="2026-01-01T06:00:00Z", end="2026-01-02T06:00:00Z")
FAIL_HI = {"column": "RRC_ConnEstabFail", "op": ">", "value": 19}
FAIL_MID = {"column": "RRC_ConnEstabFail", "op": ">", "value": 15}
FAIL_LO = {"column": "RRC_ConnEstabFail", "op": "<", "value": 8}


def _cells() -> dict[str, list[tuple[datetime, int]]]:
    out: dict[str, list[tuple[datetime, int]]] = defaultdict(list)
    with CELLS.open(newline="") as f:
        for r in csv.DictReader(f):
            out[r["Cell_ID"]].append((datetime.fromisoformat(r["Timestamp"]), int(r["RRC_ConnEstabFail"])))
    return {k: sorted(v) for k, v in out.items()}


def _in(w, t) -> bool:
    return w is None or w.start_dt <= t < w.end_dt


@pytest.fixture(scope="module")
def cells():
    return _cells()


def _within(stream, hit, n, span, w) -> bool:
    ts = [t for t, v in stream if hit(v) and _in(w, t)]
    return any(ts[i + n] - ts[i] <= span for i in range(len(ts) - n))


def _without(stream, hit, cut, n, w) -> bool:
    best = run = 0
    for t, v in stream:
        if not _in(w, t):
            continue
        if cut(v):
            run = 0
        if hit(v):
            run += 1
            best = max(best, run)
    return best > n


def _cell_bundle(tiny):
    df = pd.read_csv(CELLS)
    df["Timestamp"] = pd.to_datetime(df["Timestamp"], utc=True)
    return tiny({"cell_site": df})


def cell_q(**params) -> QuerySpec:
    return QuerySpec(template="entity_count_streak", table="cell_site", entity="Cell_ID", time="Timestamp",
                     params=params)


@pytest.mark.parametrize("window", [None, W])
def test_cells_with_more_than_n_failure_readings_within_an_hour(tiny, cells, window):
    b = _cell_bundle(tiny)
    for n in (2, 3):
        spec = cell_q(a=FAIL_HI, n=n, within_s=3600).model_copy(update={"window": window})
        want = sum(_within(s, lambda v: v > 19, n, timedelta(hours=1), window) for s in cells.values())
        total = sum(sum(1 for t, v in s if v > 19 and _in(window, t)) > n for s in cells.values())
        assert b.answer(spec) == want
        assert 0 < want < total == b.naive(spec)


@pytest.mark.parametrize("window", [None])  # inside a day the failure regime never breaks: nothing to cut
def test_cells_with_more_than_n_failures_without_a_low_reading_in_between(tiny, cells, window):
    b = _cell_bundle(tiny)
    for n in (30, 32):
        spec = cell_q(a=FAIL_MID, n=n, without=FAIL_LO).model_copy(update={"window": window})
        want = sum(_without(s, lambda v: v > 15, lambda v: v < 8, n, window) for s in cells.values())
        assert b.answer(spec) == want
        assert 0 < want < b.naive(spec)


def test_sessions_with_more_than_8_views_without_an_add_to_cart_in_between(tiny):
    streams: dict[str, list[tuple[datetime, str]]] = defaultdict(list)
    with SESSIONS.open(newline="") as f:
        for r in csv.DictReader(f):
            streams[r["session_id"]].append((datetime.fromisoformat(r["timestamp"]), r["action"]))
    want = sum(_without(sorted(s), lambda a: a == "view_product", lambda a: a == "add_to_cart", 8, None)
               for s in streams.values())
    b = tiny({"sessions": pd.read_csv(SESSIONS)})
    spec = QuerySpec(template="entity_count_streak", table="sessions", entity="session_id", time="timestamp",
                     params={"a": {"column": "action", "op": "==", "value": "view_product"}, "n": 8,
                             "without": {"column": "action", "op": "==", "value": "add_to_cart"}})
    assert b.answer(spec) == want > 0
    assert b.naive(spec) > want
