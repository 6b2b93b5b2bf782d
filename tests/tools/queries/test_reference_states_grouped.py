"""Issue 19's grouped state questions (transition counts, state occupancy and state reached by a group)
and the global top-k of transitions, on the public ecommerce tables: both executors agree with
plain-Python loops over the CSV rows, and each naive reading differs."""

from __future__ import annotations

import csv
from collections import Counter, defaultdict
from datetime import datetime

import pandas as pd
import pytest

from tests.reference_data import reference_dir
from tools.queries.spec import QuerySpec, Window

REF = reference_dir()
SESSIONS, USERS = REF / "ecommerce_sessions_data.csv", REF / "ecommerce_users_data.csv"
W = Window(start="2026-01-01T00:20:00Z", end="2026-01-01T00:50:00Z")
PAGE = {"column": "page"}
VIA = {"table": "users", "key": "user_id", "ref": "user_id"}


@pytest.fixture(scope="module")
def streams() -> list[list[dict]]:
    """Plain Python: each session's rows (time, page, referrer, country) in time order."""
    with USERS.open(newline="") as f:
        country = {r["user_id"]: r["country"] for r in csv.DictReader(f)}
    out: dict[str, list[dict]] = defaultdict(list)
    with SESSIONS.open(newline="") as f:
        for r in csv.DictReader(f):
            out[r["session_id"]].append({"t": datetime.fromisoformat(r["timestamp"]), "page": r["page"],
                                         "referrer": r["referrer"], "country": country[r["user_id"]]})
    return [sorted(v, key=lambda x: x["t"]) for v in out.values()]


@pytest.fixture
def bundle(tiny):
    return tiny({"sessions": pd.read_csv(SESSIONS), "users": pd.read_csv(USERS)})


def _in(w, t) -> bool:
    return w is None or w.start_dt <= t < w.end_dt


def q(template: str, window=None, group_by=None, **params) -> QuerySpec:
    return QuerySpec(template=template, table="sessions", entity="session_id", time="timestamp", window=window,
                     group_by=group_by, params={"state": PAGE, **params})


@pytest.mark.parametrize("window", [None, W])
def test_transitions_from_product_to_cart_by_country(bundle, streams, window):
    want: Counter = Counter()
    rows_in_cart: Counter = Counter()
    for s in streams:
        for prev, cur in zip(s, s[1:], strict=False):
            if prev["page"] == "product" and cur["page"] == "cart" and _in(window, cur["t"]):
                want[cur["country"]] += 1
        for r in s:
            rows_in_cart[r["country"]] += r["page"] == "cart" and _in(window, r["t"])
    spec = q("transition_count_by", window, "country", value="product", to="cart", group_via=VIA)
    assert bundle.answer(spec) == dict(sorted(want.items())) and len(want) >= 3
    assert bundle.naive(spec) != bundle.answer(spec)


@pytest.mark.parametrize("window", [None, W])
def test_share_of_time_on_product_pages_by_referrer(bundle, streams, window):
    tot: Counter = Counter()
    on: Counter = Counter()
    for s in streams:
        for cur, nxt in zip(s, s[1:], strict=False):
            if _in(window, cur["t"]):
                d = (nxt["t"] - cur["t"]).total_seconds()
                tot[cur["referrer"]] += d
                on[cur["referrer"]] += d if cur["page"] == "product" else 0.0
    want = {g: 100.0 * on[g] / tot[g] for g in sorted(tot) if tot[g] > 0}
    got = bundle.answer(q("occupancy_by", window, "referrer", value="product"))
    assert got.keys() == want.keys() and len(want) >= 2
    assert all(got[g] == pytest.approx(want[g], rel=1e-9) for g in want)
    assert bundle.naive(q("occupancy_by", window, "referrer", value="product")) != got


@pytest.mark.parametrize("window", [None, W])
def test_sessions_reaching_checkout_by_country(bundle, streams, window):
    who: dict[str, set] = defaultdict(set)
    for i, s in enumerate(streams):
        for j, r in enumerate(s):
            if r["page"] == "checkout" and (j == 0 or s[j - 1]["page"] != "checkout") and _in(window, r["t"]):
                who[r["country"]].add(i)
    spec = q("reached_by", window, "country", value="checkout", group_via=VIA)
    assert bundle.answer(spec) == {g: len(v) for g, v in sorted(who.items())} and len(who) >= 3


@pytest.mark.parametrize(("window", "k"), [(None, 3), (W, 5)])
def test_top_page_transitions_across_all_sessions(bundle, streams, window, k):
    pairs: Counter = Counter()
    for s in streams:
        for prev, cur in zip(s, s[1:], strict=False):
            if prev["page"] != cur["page"] and _in(window, cur["t"]):
                pairs[f"{prev['page']} > {cur['page']}"] += 1
    want = [[p, n] for p, n in sorted(pairs.items(), key=lambda x: (-x[1], x[0]))[:k]]
    spec = q("top_transitions", window, k=k)
    assert bundle.answer(spec) == want and len(want) == k
