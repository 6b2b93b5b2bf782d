"""``generate --engine dask -o s3://bucket/path``: the parts go straight to an object store.

The store is moto's S3 server on 127.0.0.1 (a free port), started here; nothing else is reached.
"""

from __future__ import annotations

import socket

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from knowledge.packs import load_pack
from tools.bundle.layout import table_files, table_names
from tools.generate import generate_bundle

KW = {"scale": 0.1, "rows_per_shard": 5_000}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """A local S3 server with bucket ``worlds``; the AWS variables point fsspec (driver and the dask
    workers, which inherit the environment) at it."""
    import os

    from moto.server import ThreadedMotoServer

    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()
    s3fs.S3FileSystem().mkdir("worlds")
    yield env
    server.stop()
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    s3fs.S3FileSystem.clear_instance_cache()


@pytest.fixture(scope="module")
def client(s3):
    from tools.generate.distributed import cluster_client

    cl, cluster = cluster_client(None, n_workers=1, memory_limit=None)  # started after the AWS variables
    yield cl
    cl.close()
    cluster.close()


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    out = tmp_path_factory.mktemp("remote") / "local"
    generate_bundle(load_pack("iot"), out, **KW)
    return out


def _content(bundle, name) -> pa.Table:
    t = pa.concat_tables(pq.read_table(p) for p in table_files(bundle, name))
    return t.cast(pa.schema([pa.field(f.name, pa.string()) if pa.types.is_dictionary(f.type) else f
                             for f in t.schema]))


@pytest.mark.slow
@pytest.mark.parametrize("threshold", [None, 0])
def test_dask_generate_into_s3_and_fetch_back(client, local, tmp_path, threshold):
    """Workers write the parts to the store, the driver the rest (manifest.json last, with the parts'
    hashes); the fetched copy verifies, has the local engine's rows, and its data.duckdb (a copy, or
    views relative to the bundle above the threshold) answers as the local engine's."""
    import duckdb

    from tools.bundle.integrity import verify_bundle
    from tools.bundle.layout import connect_bundle
    from tools.generate.remote import fetch_bundle, generate_to_url

    spec = load_pack("iot")
    url = f"s3://worlds/t{threshold}/iot"
    generate_to_url(spec, url, client=client, view_threshold_rows=threshold, **KW)
    with pytest.raises(FileExistsError):
        generate_to_url(spec, url, client=client, **KW)
    got = fetch_bundle(url, tmp_path / "cache")
    assert fetch_bundle(url, tmp_path / "cache") == got  # unchanged manifest: the cached copy
    verify_bundle(got, full=True)
    assert table_names(got) == table_names(local)
    assert len(table_files(got, "readings")) > 1
    for name in table_names(local):
        assert _content(got, name).equals(_content(local, name)), name
    a = duckdb.connect(str(local / "data.duckdb"), read_only=True)
    b = connect_bundle(got / "data.duckdb")
    kind = b.execute("SELECT table_type FROM information_schema.tables WHERE table_name = 'readings'").fetchone()[0]
    assert kind == ("VIEW" if threshold == 0 else "BASE TABLE")
    q = "SELECT count(*), round(sum(temperature_c), 4), min(timestamp), max(temperature_c) FROM readings"
    assert a.execute(q).fetchall() == b.execute(q).fetchall()
    a.close()
    b.close()
