"""Column names from real files (spaces, units, quotes, a leading digit) become spec identifiers, so
an inferred spec always validates and its names are safe in SQL."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tools.infer.api import infer_from_tables
from tools.infer.ddl import infer_from_ddl
from tools.infer.read import identifier_columns
from tools.spec import parse_spec_text
from tools.spec.io import dump_spec


def test_identifier_columns_are_unique_ignoring_case():
    assert identifier_columns(['temp "C"; DROP', "Humidity %", "humidity", "2nd reading", "%%"]) == \
        ["temp_C_DROP", "Humidity", "humidity_2", "c_2nd_reading", "column"]


def test_a_csv_with_hostile_headers_infers_a_valid_spec(tmp_path):
    n = 300
    rng = np.random.default_rng(0)
    pd.DataFrame({"sensor id": [f"S{i % 3}" for i in range(n)],
                  "timestamp": pd.date_range("2026-01-01", periods=n, freq="15min", tz="UTC"),
                  'temp "C"; DROP TABLE x; --': rng.normal(20, 1, n), "Humidity %": rng.normal(50, 2, n),
                  }).to_csv(tmp_path / "readings.csv", index=False)
    spec = infer_from_tables([tmp_path / "readings.csv"]).spec
    names = {m.name for e in spec.entities for m in e.measurements} | {e.id.column for e in spec.entities}
    assert {"temp_C_DROP_TABLE_x", "Humidity"} <= names
    parse_spec_text(dump_spec(spec))  # round-trips through validation


def test_ddl_names_become_identifiers(tmp_path):
    ddl = tmp_path / "schema.sql"
    ddl.write_text('CREATE TABLE "Cells" (id INTEGER PRIMARY KEY, "load%" DOUBLE, ts TIMESTAMP);\n')
    spec = infer_from_ddl(ddl)[0]
    assert "load" in {m.name for m in spec.entities[0].measurements} | {a.name for a in spec.entities[0].attributes}
