"""The gold SQL of issue 19's new question types runs on a real PostgreSQL (through the dialect
translation every record carries) and returns the DuckDB answer, on the public reference tables. (Spark
runs them in test_gold_sql_dialects.py wherever a pack's suite holds them; a second Spark session here
would cost a minute.)"""

from __future__ import annotations

import pandas as pd
import psycopg
import pytest

from tests.reference_data import reference_dir
from tests.tools.export.test_gold_sql_dialects import _plain
from tests.tools.queries.conftest import TinyBundle
from tools.export import load_postgres
from tools.queries.answers import agree, canonical
from tools.queries.dialects import gold_sql_dialects
from tools.queries.registry import load_templates
from tools.queries.spec import QuerySpec, Window

REF = reference_dir()
W = Window(start="2026-01-01T00:20:00Z", end="2026-01-01T00:50:00Z")
DAY = Window(start="2026-01-01T06:00:00Z", end="2026-01-02T06:00:00Z")
VIA = {"table": "users", "key": "user_id", "ref": "user_id"}
PAGE = {"column": "page"}


def _act(v: str) -> dict:
    return {"column": "action", "op": "==", "value": v}


def _s(template: str, **kw) -> QuerySpec:
    return QuerySpec(template=template, table="sessions", entity="session_id", time="timestamp", **kw)


def _c(template: str, **kw) -> QuerySpec:
    return QuerySpec(template=template, table="cell_site", entity="Cell_ID", time="Timestamp", **kw)


FAIL = {"column": "RRC_ConnEstabFail", "op": ">", "value": 19}
SPECS = [
    _c("entity_count_streak", window=DAY, params={"a": FAIL, "n": 3, "within_s": 3600}),
    _c("entity_count_streak", params={"a": {**FAIL, "value": 15}, "n": 30,
                                      "without": {"column": "RRC_ConnEstabFail", "op": "<", "value": 8}}),
    _s("entity_count_streak", params={"a": _act("view_product"), "n": 8, "without": _act("add_to_cart")}),
    _s("parent_sequence_count", window=W, params={"of": "user_id", "a": _act("view_product"), "b": _act("add_to_cart")}),
    _s("transition_count_by", window=W, group_by="country",
       params={"state": PAGE, "value": "product", "to": "cart", "group_via": VIA}),
    _s("occupancy_by", group_by="referrer", params={"state": PAGE, "value": "product"}),
    _s("reached_by", window=W, group_by="country", params={"state": PAGE, "value": "checkout", "group_via": VIA}),
    _s("top_transitions", window=W, params={"state": PAGE, "k": 5}),
]


@pytest.fixture(scope="module")
def ref_bundle(tmp_path_factory):
    cells = pd.read_csv(REF / "cell_site_data.csv")
    cells["Timestamp"] = pd.to_datetime(cells["Timestamp"], utc=True)
    return TinyBundle(tmp_path_factory.mktemp("issue19") / "b", {
        "sessions": pd.read_csv(REF / "ecommerce_sessions_data.csv"),
        "users": pd.read_csv(REF / "ecommerce_users_data.csv"), "cell_site": cells})


def _want(b: TinyBundle, q: QuerySpec):
    t = load_templates()[q.template]
    return b.answer(q), t.type_of(q), t.sql(q)


@pytest.mark.slow
def test_postgres_runs_the_new_types(ref_bundle, postgres_dsn):
    load_postgres(ref_bundle.root, postgres_dsn, schema="issue19", replace=True)
    with psycopg.connect(postgres_dsn, autocommit=True) as pg:
        pg.execute("SET search_path TO issue19")
        pg.execute("SET TimeZone TO 'UTC'")
        for q in SPECS:
            want, atype, sql = _want(ref_bundle, q)
            row = pg.execute(gold_sql_dialects(sql)["postgres"]).fetchone()
            got = canonical(None if row is None else _plain(row[0]), atype)
            assert agree(got, want), f"{q.template}: postgres {got!r} != {want!r}"
