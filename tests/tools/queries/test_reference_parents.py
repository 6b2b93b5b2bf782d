"""Issue 19's scoping by the parent entity (``parent_sequence_count``): "how many users had a session with
a product view followed by an add-to-cart" on the public ecommerce tables; both executors agree with
plain-Python loops over the CSV rows, and the naive reading (sessions, not users) differs."""

from __future__ import annotations

import csv
from collections import defaultdict
from datetime import datetime

import pandas as pd
import pytest

from tests.reference_data import reference_dir
from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window

REF = reference_dir()
SESSIONS, USERS = REF / "ecommerce_sessions_data.csv", REF / "ecommerce_users_data.csv"
VIEW = {"column": "action", "op": "==", "value": "view_product"}
ADD = {"column": "action", "op": "==", "value": "add_to_cart"}
CHECKOUT = {"column": "action", "op": "==", "value": "checkout"}
W = Window(start="2026-01-01T00:20:00Z", end="2026-01-01T00:50:00Z")
PREMIUM = EntityFilter(predicates=[Predicate(column="subscription_type", op="==", value="premium")],
                       table="users", key="user_id", ref="user_id")


def _plain(first: str, then: str, window, users: set[str] | None) -> tuple[int, int]:
    """(users, sessions) with a `first` action and a later `then` action in one session, from the CSV."""
    rows: dict[str, list[tuple[datetime, str, str]]] = defaultdict(list)
    with SESSIONS.open(newline="") as f:
        for r in csv.DictReader(f):
            t = datetime.fromisoformat(r["timestamp"])
            if (window is None or window.start_dt <= t < window.end_dt) and (users is None or r["user_id"] in users):
                rows[r["session_id"]].append((t, r["action"], r["user_id"]))
    who, sessions = set(), 0
    for evs in rows.values():
        if any(a == first and any(u == then and s > t for s, u, _ in evs) for t, a, _ in evs):
            who.add(evs[0][2])
            sessions += 1
    return len(who), sessions


@pytest.mark.parametrize("window", [None, W])
@pytest.mark.parametrize(("first", "then"), [(VIEW, ADD), (ADD, CHECKOUT)])
def test_users_whose_sessions_did_a_then_b(tiny, window, first, then):
    b = tiny({"sessions": pd.read_csv(SESSIONS), "users": pd.read_csv(USERS)})
    spec = QuerySpec(template="parent_sequence_count", table="sessions", entity="session_id", time="timestamp",
                     window=window, params={"of": "user_id", "a": first, "b": then})
    users, sessions = _plain(first["value"], then["value"], window, None)
    assert b.answer(spec) == users > 0
    assert b.naive(spec) == sessions > users


def test_premium_users_whose_sessions_viewed_then_added(tiny):
    b = tiny({"sessions": pd.read_csv(SESSIONS), "users": pd.read_csv(USERS)})
    with USERS.open(newline="") as f:
        premium = {r["user_id"] for r in csv.DictReader(f) if r["subscription_type"] == "premium"}
    spec = QuerySpec(template="parent_sequence_count", table="sessions", entity="session_id", time="timestamp",
                     entity_filter=PREMIUM, params={"of": "user_id", "a": VIEW, "b": ADD})
    users, _sessions = _plain("view_product", "add_to_cart", None, premium)
    assert b.answer(spec) == users
    assert 0 < users < _plain("view_product", "add_to_cart", None, None)[0]
