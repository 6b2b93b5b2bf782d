"""``--engine dask``: the same world as the local engine, written as partitioned Parquet."""

from __future__ import annotations

import json

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from knowledge.packs import load_pack
from tests.conftest import PACK_SCALES
from tools.bundle.layout import connect_bundle, table_files, table_names
from tools.generate import generate_bundle

ROWS_PER_SHARD = 5_000  # several parts per table even at small scale


@pytest.fixture(scope="module")
def client():
    from tools.generate.distributed import cluster_client

    cl, cluster = cluster_client(None, n_workers=2, memory_limit=None)
    yield cl
    cl.close()
    cluster.close()


def _content(bundle, name) -> pa.Table:
    """A table's rows in file order with text columns as plain strings (the encodings may differ)."""
    t = pa.concat_tables(pq.read_table(p) for p in table_files(bundle, name))
    return t.cast(pa.schema([pa.field(f.name, pa.string()) if pa.types.is_dictionary(f.type) else f
                             for f in t.schema]))


@pytest.mark.slow
@pytest.mark.parametrize("pack", sorted(PACK_SCALES))
def test_dask_engine_writes_the_local_engines_tables(pack, client, tmp_path):
    spec = load_pack(pack)
    kw = {"scale": PACK_SCALES[pack], "rows_per_shard": ROWS_PER_SHARD, "with_baseline": pack == "iot"}
    local = generate_bundle(spec, tmp_path / "local", **kw)
    dask = generate_bundle(spec, tmp_path / "dask", engine="dask", client=client, **kw)
    names = table_names(tmp_path / "local")
    assert names == table_names(tmp_path / "dask") and names
    assert any(len(table_files(tmp_path / "dask", n)) > 1 for n in names), "the test should cover several parts"
    for name in names:
        assert (tmp_path / "dask" / "data" / name).is_dir()
        assert _content(tmp_path / "dask", name).equals(_content(tmp_path / "local", name)), name
    assert (tmp_path / "dask" / "incidents.json").read_bytes() == (tmp_path / "local" / "incidents.json").read_bytes()
    assert [(t.name, t.rows, t.time_min, t.time_max, t.columns) for t in dask.tables] == \
        [(t.name, t.rows, t.time_min, t.time_max, t.columns) for t in local.tables]
    assert dask.engine == "dask" and len(dask.worker_peak_rss) == 2
    # data.duckdb: a copy below the size threshold, with the same rows in the same order
    a = duckdb.connect(str(tmp_path / "local" / "data.duckdb"), read_only=True)
    b = connect_bundle(tmp_path / "dask" / "data.duckdb")
    for t in dask.tables:
        q = f'SELECT * FROM {"baseline." + t.name[:-10] if t.name.endswith("__baseline") else t.name}'
        assert a.execute(q).fetchall() == b.execute(q).fetchall(), t.name
        assert b.execute("SELECT table_type FROM information_schema.tables WHERE table_name = ?",
                         [t.name.removesuffix("__baseline")]).fetchone()[0] == "BASE TABLE"
    a.close()
    b.close()
    assert json.loads((tmp_path / "dask" / "manifest.json").read_text())["engine"] == "dask"
    if pack == "security":  # the pandas reference reads the parts as it reads the single file
        from tools.queries.reference.frames import Frames

        fa, fb = Frames(tmp_path / "local"), Frames(tmp_path / "dask")
        for name in names:
            x, y = fa.table(name), fb.table(name)
            assert x.astype(str).equals(y.astype(str)) and list(x.dtypes) == list(y.dtypes), name


def test_big_worlds_get_views_that_follow_the_bundle(client, tmp_path):
    """Above the threshold data.duckdb holds views over the parts, relative to the bundle: moving the
    bundle keeps them working, and the checks give the local engine's results on them."""
    from tools.checks import check_bundle

    generate_bundle(load_pack("iot"), tmp_path / "b", scale=0.1, engine="dask", client=client, view_threshold_rows=0)
    generate_bundle(load_pack("iot"), tmp_path / "local", scale=0.1)
    (tmp_path / "b").rename(tmp_path / "moved")
    con = connect_bundle(tmp_path / "moved" / "data.duckdb")
    kinds = dict(con.execute("SELECT table_name, table_type FROM information_schema.tables").fetchall())
    assert set(kinds.values()) == {"VIEW"}
    got = [(c.name, c.table, c.passed, c.detail) for c in check_bundle(tmp_path / "moved")]
    assert got == [(c.name, c.table, c.passed, c.detail) for c in check_bundle(tmp_path / "local")] and got
    n = con.execute("SELECT count(*) FROM readings").fetchone()[0]
    assert n == sum(pq.ParquetFile(p).metadata.num_rows for p in table_files(tmp_path / "moved", "readings"))
    con.close()
    # agents under test read it on every backend: the workspace copy of data.duckdb, and the parts
    from agents.sql_agent import _Connections
    from tools.harness.workspace import agent_workspace

    for backend in ("duckdb", "parquet"):
        with agent_workspace(tmp_path / "moved", backend) as ws:
            assert _Connections(ws.context).query("SELECT count(*) FROM readings")[1] == [(n,)], backend
    # `chronoeval infer` takes a partitioned table's directory as one table
    from tools.infer.read import read_frame

    assert len(read_frame(tmp_path / "moved" / "data" / "readings")) == n



def test_cli_engine_flags_are_checked(tmp_path):
    from typer.testing import CliRunner

    from graph.cli import app

    r = CliRunner().invoke(app, ["generate", "iot", "-o", str(tmp_path / "a"), "--engine", "spark"])
    assert r.exit_code == 2 and "use local or dask" in r.output
    r = CliRunner().invoke(app, ["generate", "iot", "-o", str(tmp_path / "b"), "--scheduler", "tcp://127.0.0.1:1"])
    assert r.exit_code == 2 and "--scheduler needs --engine dask" in r.output
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    r = CliRunner().invoke(app, ["check", str(tmp_path / "c"), "--memory-limit", "lots"])
    assert r.exit_code == 2 and "give a size such as 4GB" in r.output
