"""The gold SQL of issue 19's incident variants (a baseline over another population, affected counts by a
threshold) transpiles to every gold SQL dialect and, on a real PostgreSQL, returns the DuckDB answer on the
public telecom tables with an injected incident. (They are opt-in, so the pack suites that
test_gold_sql_dialects.py runs on Spark and Postgres do not hold them.)"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.reference_data import reference_dir
from tests.tools.export.gold_sql_checks import assert_postgres_agrees, assert_transpiles
from tests.tools.queries.conftest import TinyBundle
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
    assert_transpiles(SPECS)


@pytest.mark.slow
def test_postgres_runs_the_variants(ref_bundle, postgres_dsn):
    assert_postgres_agrees(ref_bundle, postgres_dsn, "incident_pop", SPECS)
