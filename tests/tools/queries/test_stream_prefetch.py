"""Screening re-runs on the per-entity forms ride along on one pass over the parts (views-only worlds,
tools/queries/evaluate.prefetch_screening): every outcome is the one separate passes give, and the
parts are read fewer times."""

from __future__ import annotations

import shutil

import pytest

from knowledge.packs import load_pack
from tools.generate import generate_bundle

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def views_world(tmp_path_factory):
    """The iot pack in parts (3,000 rows per shard) with data.duckdb as views over them (as above 50M rows)."""
    from tools.generate.distributed import cluster_client
    from tools.generate.duck_views import write_duckdb

    b = tmp_path_factory.mktemp("prefetch") / "views"
    client, cluster = cluster_client(None, n_workers=1, memory_limit=None)
    try:
        generate_bundle(load_pack("iot"), b, scale=0.3, rows_per_shard=3_000, engine="dask", client=client)
    finally:
        client.close()
        cluster.close()
    (b / "data.duckdb").unlink()
    write_duckdb(b, str(b / "data"), ["readings", "sensors"], views=True)
    return b


def _outcomes(bundle, monkeypatch, prefetch: bool) -> tuple[list, int]:
    from tools.queries import evaluate as ev
    from tools.queries import stream_frames
    from tools.queries.context import open_context
    from tools.queries.registry import load_templates
    from tools.queries.stream import executor, explore_on_sample

    reads, real = [0], stream_frames.read_frame

    def spy(files, columns, where):
        reads[0] += 1
        return real(files, columns, where)

    monkeypatch.setattr(stream_frames, "read_frame", spy)
    if not prefetch:
        monkeypatch.setattr(ev, "prefetch_screening", lambda t, c, ctx: None)
    ctx = open_context(bundle, seed=1)
    out = []
    try:
        explore_on_sample(ctx)
        for name, t in sorted(load_templates().items()):
            if t.family != "stateful":
                continue
            cands = [c for c in t.candidates(ctx) if executor(ctx).streams(t, c.spec)]
            screened = [c for c in cands if c.spec.window is not None or c.spec.entity_filter is not None][:2]
            for c in screened:
                o = ev.evaluate(t, c, ctx, render=False)
                out.append((name, o.answer, o.sql_answer, o.naive, o.reason))
    finally:
        ctx.close()
        monkeypatch.setattr(stream_frames, "read_frame", real)
    return out, reads[0]


def test_prefetched_screening_gives_the_same_outcomes_with_fewer_reads(views_world, tmp_path, monkeypatch):
    other = shutil.copytree(views_world, tmp_path / "again")
    with_prefetch, reads_with = _outcomes(views_world, monkeypatch, prefetch=True)
    without, reads_without = _outcomes(other, monkeypatch, prefetch=False)
    assert with_prefetch == without
    assert len(with_prefetch) >= 15 and sum(r is None for *_, r in with_prefetch) >= 3, with_prefetch
    assert reads_with < 0.7 * reads_without, (reads_with, reads_without)
