"""A crafted data.duckdb (not made from a spec, so its table names were never validated) cannot make
the CSV/Parquet export run SQL of its own or write outside the export directory."""

from __future__ import annotations

import duckdb
import pytest

from tools.bundle.paths import UnsafePathError
from tools.bundle.tables import write_tables
from tools.sqlsafe import quote_ident

INJECT = "t\" TO 'PWNED.csv' (FORMAT CSV); COPY (SELECT 1) TO 'PWNED2.csv' (FORMAT CSV); --"


def _bundle(tmp_path, table: str):
    b = tmp_path / "bundle"
    b.mkdir()
    con = duckdb.connect(str(b / "data.duckdb"))
    con.execute(f"CREATE TABLE {quote_ident(table)} AS SELECT 1 AS {quote_ident(table)}")
    con.close()
    return b


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_injected_table_name_is_one_quoted_name(tmp_path, monkeypatch, fmt):
    monkeypatch.chdir(tmp_path)
    b = _bundle(tmp_path, INJECT)
    out = tmp_path / "exp"
    out.mkdir()
    # the name holds no '/', so it is a (strange) file name inside the export directory
    paths = write_tables(b, out, fmt)
    assert [p.parent for p in paths] == [out] and paths[0].is_file()
    assert not list(tmp_path.rglob("PWNED*"))


@pytest.mark.parametrize("name", ["../../evil", "/tmp/evil_abs", ".."])
def test_traversing_table_name_is_refused(tmp_path, name):
    b = _bundle(tmp_path, name)
    out = tmp_path / "exp"
    out.mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(UnsafePathError, match="cannot name a file inside"):
        write_tables(b, out, "csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == before and not list(out.iterdir())
