"""The gold SQL of issue 19's incident variants (a baseline over another population, affected counts by a
threshold) transpiles to every gold SQL dialect and, on a real PostgreSQL, returns the DuckDB answer on the
public telecom tables with an injected incident. (They are opt-in, so the pack suites that
test_gold_sql_dialects.py runs on Spark and Postgres do not hold them.)"""

from __future__ import annotations

import pandas as pd
import psycopg
import pytest

from tests.reference_data import reference_dir
from tests.tools.export.test_gold_sql_dialects import _plain
from tests.tools.queries.conftest import TinyBundle
from tools.export import load_postgres
from tools.queries.answers import agree, canonical
from tools.queries.dialects import DIALECTS, gold_sql_dialects
from tools.queries.registry import load_templates
from tools.queries.spec import QuerySpec

REF = reference_dir()
OUTAGE = {"start": "2026-01-02T00:00:00Z", "end": "2026-01-02T06:15:00Z"}
BEFORE = {"start": "2026-01-01T00:00:00Z", "end": "2026-01-01T06:15:00Z"}
SERVED = {"predicates": [{"column": "Transport_Device_ID", "op": "==", "value": "RTR_001"},
                         {"column": "Transport_Interface_ID", "op": "==", "value": "eth0"}]}
PEERS = {"predicates": [{"column": "Transport_Device_ID", "op": "!=", "value": "RTR_001"}]}


def _c(template: str, **params) -> QuerySpec:
    return QuerySpec.model_validate({"template": template, "table": "cell_site", "entity": "Cell_ID",
                                     "time": "Timestamp", "window": OUTAGE, "params": params,
                                     **({"entity_filter": SERVED} if template == "incident_vs_baseline" else {})})


SPECS = [
    _c("incident_vs_baseline", key="Cell_Availability", agg="mean", direction="down", figure="difference",
       baseline=OUTAGE, baseline_entities=PEERS),
    _c("incident_vs_baseline", key="RRC_ConnEstabFail", agg="mean", direction="up", figure="ratio",
       baseline=BEFORE, baseline_entities="all"),
    _c("incident_vs_baseline", key="Cell_Availability", agg="std", direction="up", figure="ratio",
       baseline=BEFORE, baseline_entities=PEERS),
    _c("incident_affected_count", key="Cell_Availability", rule="threshold", op="<", value=99),
    _c("incident_affected_count", key="RRC_ConnEstabFail", rule="threshold", op=">=", value=20),
]


@pytest.fixture(scope="module")
def ref_bundle(tmp_path_factory):
    cells = pd.read_csv(REF / "cell_site_with_inc_data.csv")
    cells["Timestamp"] = pd.to_datetime(cells["Timestamp"], utc=True)
    # the served cells and as many others, over the two windows: a small load into PostgreSQL
    served = cells["Transport_Device_ID"].eq("RTR_001") & cells["Transport_Interface_ID"].eq("eth0")
    keep = set(cells.loc[served, "Cell_ID"]) | set(sorted(set(cells.loc[~served, "Cell_ID"]))[:20])
    cells = cells[cells["Cell_ID"].isin(keep) & (cells["Timestamp"] < pd.Timestamp("2026-01-02T07:00:00Z"))]
    return TinyBundle(tmp_path_factory.mktemp("incident-pop-sql") / "b", {"cell_site": cells})


def test_the_variants_transpile_to_every_dialect():
    t = load_templates()
    for q in SPECS:
        got = gold_sql_dialects(t[q.template].sql(q))
        assert set(got) == set(DIALECTS) and all(got.values())


@pytest.mark.slow
def test_postgres_runs_the_variants(ref_bundle, postgres_dsn):
    load_postgres(ref_bundle.root, postgres_dsn, schema="incident_pop", replace=True)
    t = load_templates()
    with psycopg.connect(postgres_dsn, autocommit=True) as pg:
        pg.execute("SET search_path TO incident_pop")
        pg.execute("SET TimeZone TO 'UTC'")
        for q in SPECS:
            want, atype = ref_bundle.answer(q), t[q.template].type_of(q)
            row = pg.execute(gold_sql_dialects(t[q.template].sql(q))["postgres"]).fetchone()
            got = canonical(None if row is None else _plain(row[0]), atype)
            assert agree(got, want), f"{q.template}: postgres {got!r} != {want!r}"
