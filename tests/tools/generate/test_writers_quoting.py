"""The bundle writer quotes every table and column name (names are validated by the spec, but the
writer must not depend on it) and keeps Parquet files inside data/."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from tools.bundle.paths import UnsafePathError
from tools.generate.writers import ShardPipeline

HOSTILE = 'x" AS a FROM _shard; COPY (SELECT 42 AS pwned) TO \'PWNED\' (FORMAT CSV); SELECT 1 AS "b'


def test_hostile_names_become_one_table_and_one_column(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    pipe = ShardPipeline(tmp_path / "data", tmp_path / "data.duckdb")
    pipe.put("readings", pa.table({HOSTILE: [1.0, 2.0], "zone": pa.array(["a", "b"]).dictionary_encode()}))
    pipe.close()
    con = duckdb.connect(str(tmp_path / "data.duckdb"), read_only=True)
    assert con.execute("SELECT column_name FROM information_schema.columns ORDER BY ordinal_position").fetchall() == \
        [(HOSTILE,), ("zone",)]
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("name", ["../escape", "/tmp/abs_escape"])
def test_table_names_cannot_leave_data_dir(tmp_path, name):
    (tmp_path / "data").mkdir()
    pipe = ShardPipeline(tmp_path / "data", tmp_path / "data.duckdb")
    pipe.put(name, pa.table({"v": [1]}))
    with pytest.raises(UnsafePathError):
        pipe.close()
    assert not (tmp_path / "escape.parquet").exists() and not list(tmp_path.glob("*.parquet"))
    assert not Path("/tmp/abs_escape.parquet").exists()
