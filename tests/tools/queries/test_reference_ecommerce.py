"""Stateful answers on the public ecommerce reference tables: both executors agree, and the
headline answers match a plain-Python computation written from the CSV rows.

The CSVs are read in place (never copied into the repository) and loaded into a ``tiny`` bundle.
"""

import csv
from collections import defaultdict
from datetime import datetime

import pandas as pd
import pytest

from tests.reference_data import reference_dir
from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window

REF = reference_dir()
SESSIONS, USERS = REF / "ecommerce_sessions_data.csv", REF / "ecommerce_users_data.csv"


def act(value) -> dict:
    return {"column": "action", "op": "==", "value": value}


VIEW, ADD, CHECKOUT, COMPLETE = act("view_product"), act("add_to_cart"), act("checkout"), act("complete")
CART_CLOSED = {"column": "action", "op": "in", "value": ["complete", "cart_abandoned"]}


def q(template, **kw) -> QuerySpec:
    return QuerySpec(template=template, table="sessions", entity="session_id", time="timestamp", **kw)


@pytest.fixture(scope="module")
def streams() -> dict[str, list[tuple[datetime, str]]]:
    """Plain Python: each session's (time, action) list in time order, straight from the CSV."""
    out: dict[str, list[tuple[datetime, str]]] = defaultdict(list)
    with SESSIONS.open(newline="") as f:
        for row in csv.DictReader(f):
            out[row["session_id"]].append((datetime.fromisoformat(row["timestamp"]), row["action"]))
    return {k: sorted(v) for k, v in out.items()}


@pytest.fixture
def b(tiny):
    return tiny({"sessions": pd.read_csv(SESSIONS), "users": pd.read_csv(USERS)})


def test_sessions_matching_the_purchase_funnel(b, streams):
    got = b.answer(q("sequence_match", params={"steps": [VIEW, ADD, CHECKOUT, COMPLETE]}))
    want = 0
    for rows in streams.values():
        i = 0
        for _t, a in rows:
            if i < 4 and a == ("view_product", "add_to_cart", "checkout", "complete")[i]:
                i += 1
        want += i == 4
    assert got == want > 0


def test_mean_time_from_viewing_to_adding_to_cart(b, streams):
    got = b.answer(q("avg_time_between", params={"a": VIEW, "b": ADD}))
    gaps = []
    for rows in streams.values():
        first_view = next((t for t, a in rows if a == "view_product"), None)
        add = next((t for t, a in rows if a == "add_to_cart" and first_view and t > first_view), None)
        if add is not None:
            gaps.append((add - first_view).total_seconds())
    assert got == pytest.approx(sum(gaps) / len(gaps), rel=1e-12)
    assert b.naive(q("avg_time_between", params={"a": VIEW, "b": ADD})) != pytest.approx(got)


def test_views_while_the_cart_is_open(b, streams):
    spec = q("count_in_state", params={"x": VIEW, "open": ADD, "close": CART_CLOSED})
    got = b.answer(spec)
    want = 0
    for rows in streams.values():
        opened = next((t for t, a in rows if a == "add_to_cart"), None)
        if opened is None:
            continue
        closed = next((t for t, a in rows if t > opened and a in ("complete", "cart_abandoned")), None)
        want += sum(1 for t, a in rows if a == "view_product" and t > opened and (closed is None or t < closed))
    assert got == want
    assert b.naive(spec) > got


@pytest.mark.parametrize("spec", [
    q("conversion_rate", params={"a": ADD, "b": COMPLETE}),
    q("conversion_rate", window=Window(start="2026-01-01T00:00:00Z", end="2026-01-01T06:00:00Z"),
      params={"a": VIEW, "b": ADD}),
    q("count_after_trigger", params={"x": VIEW, "y": ADD, "horizon_s": 300}),
    q("count_in_state", window=Window(start="2026-01-01T02:00:00Z", end="2026-01-01T10:00:00Z"),
      params={"x": VIEW, "open": ADD, "close": CHECKOUT}),
    q("sequence_match", entity_filter=EntityFilter(
        predicates=[Predicate(column="subscription_type", op="==", value="premium")], table="users",
        key="user_id", ref="user_id"), params={"steps": [ADD, VIEW, ADD]}),
    q("state_reached", window=Window(start="2026-01-01T01:00:00Z", end="2026-01-01T05:00:00Z"),
      params={"state": {"column": "page"}, "value": "cart"}),
    q("alternating_count", params={"state": {"column": "page"}, "a": "product", "b": "search"}),
    q("alternating_count", params={"state": {"column": "page"}, "a": "product", "b": "search", "k": 3}),
    q("cross_window_delta", window=Window(start="2026-01-01T04:00:00Z", end="2026-01-01T08:00:00Z"),
      params={"measure": "entries", "state": {"column": "page"}, "value": "cart", "offset_s": 14400}),
], ids=lambda s: s.template)
def test_both_executors_agree(b, spec):
    assert b.answer(spec) is not None
