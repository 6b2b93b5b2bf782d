"""The gold SQL of templates taking a composite entity key (a link is Device_ID + Interface_ID; the keyed
view of tools/queries/composite.py) transpiles to every gold SQL dialect and, on a real PostgreSQL,
returns the DuckDB answer on the public transport-link table. (No pack has a composite key, so the pack
suites that test_gold_sql_dialects.py runs on Spark and Postgres do not hold such questions.)"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.reference_data import reference_dir
from tests.tools.export.gold_sql_checks import assert_postgres_agrees, assert_transpiles
from tests.tools.queries.conftest import TinyBundle
from tools.queries.registry import load_templates
from tools.queries.spec import QuerySpec

LOSS = {"column": "Packet_Loss_Percent", "op": ">", "value": 0.6}
CLEAR = {"column": "Packet_Loss_Percent", "op": "<", "value": 0.4}
LOSSY = {"predicate": LOSS}


def _l(template: str, **kw) -> QuerySpec:
    return QuerySpec.model_validate({"template": template, "table": "transport_link", "entity": "Device_ID",
                                     "time": "Timestamp", "entity_parts": ["Interface_ID"], **kw})


SPECS = [
    _l("state_duration", params={"state": LOSSY, "value": "in"}),
    _l("avg_time_between", params={"a": LOSS, "b": CLEAR}),
    _l("transition_counts", params={"state": LOSSY, "value": "in"}),
    _l("top_k_by_aggregate", params={"k": 2, "key": "Packet_Loss_Percent", "agg": "max"}),
    _l("distinct_count", event_filter=[{"column": "Packet_Loss_Percent", "op": ">", "value": 1.2}]),
    _l("group_aggregate", group_by="Device_ID", params={"agg": "max", "key": "Jitter_ms"}),
    _l("top_transitions", params={"state": LOSSY, "k": 2}),
    _l("entity_count_threshold", event_filter=[LOSS], params={"n": 30}),
    _l("event_count", entity_filter={"predicates": [{"column": "Packet_Loss_Percent", "op": ">", "value": 1.3}]}),
]


@pytest.fixture(scope="module")
def ref_bundle(tmp_path_factory):
    links = pd.read_csv(reference_dir() / "transport_link_with_inc_data.csv")
    links["Timestamp"] = pd.to_datetime(links["Timestamp"], utc=True)
    return TinyBundle(tmp_path_factory.mktemp("composite-sql") / "b", {"transport_link": links})


STATIC = _l("state_duration", params={"state": LOSSY, "value": "in"},  # a second view: the static table's
            entity_filter={"predicates": [{"column": "region", "op": "==", "value": "north"}],
                           "table": "links", "key": "Device_ID", "ref": "Device_ID"})


def test_keyed_sql_transpiles_to_every_dialect():
    assert '"links__keyed" AS (SELECT *' in load_templates()["state_duration"].sql(STATIC)
    assert_transpiles([*SPECS, STATIC])


@pytest.mark.slow
def test_postgres_runs_the_keyed_sql(ref_bundle, postgres_dsn):
    assert_postgres_agrees(ref_bundle, postgres_dsn, "composite_key", SPECS, answered=True)
