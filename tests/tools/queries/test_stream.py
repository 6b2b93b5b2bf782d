"""The pandas reference executor on partitioned bundles (shard by shard, tools/queries/stream.py):
the same question suite as the single-file layout, and memory bounded by a part, not the table."""

from __future__ import annotations

import pytest

from knowledge.packs import load_pack
from tools.bundle.layout import table_files
from tools.generate import generate_bundle
from tools.queries.stream import MERGED, SELECTION, StreamExecutor, how

ROWS_PER_SHARD = 4_000  # several parts per table at a small scale


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    """The iot pack at a small scale, generated twice with the same shards: one Parquet file per table
    (local engine) and one part per shard (``--engine dask``)."""
    from tools.generate.distributed import cluster_client

    root = tmp_path_factory.mktemp("stream")
    kw = {"scale": 0.3, "rows_per_shard": ROWS_PER_SHARD}
    generate_bundle(load_pack("iot"), root / "local", **kw)
    client, cluster = cluster_client(None, n_workers=1, memory_limit=None)
    try:
        generate_bundle(load_pack("iot"), root / "dask", engine="dask", client=client, **kw)
    finally:
        client.close()
        cluster.close()
    assert len(table_files(root / "dask", "readings")) > 3, "the test must cover several parts"
    return root / "local", root / "dask"


@pytest.mark.slow
def test_partitioned_bundle_gets_the_single_file_suite(layouts):
    """Same shards, same seed: the streamed suite is byte for byte the single-file one (merged and
    selection templates included: the suite must have used them)."""
    import json

    from tools.queries.suite import build_suite

    local, dask = layouts
    build_suite(local)
    build_suite(dask)
    a, b = (local / "qa.jsonl").read_text(), (dask / "qa.jsonl").read_text()
    assert a == b
    used = {json.loads(line)["template"] for line in a.splitlines()}
    assert used & set(MERGED) and used & set(SELECTION), used


def test_every_template_answers_the_same_on_both_layouts(layouts):
    """Direct check of each execution path on the kept questions of the single-file suite: answer and
    naive reading from the parts equal those from the whole table."""
    import json

    from tools.queries.answers import canonical
    from tools.queries.reference.frames import Frames
    from tools.queries.registry import load_templates
    from tools.queries.spec import QuerySpec
    from tools.queries.suite import build_suite

    local, dask = layouts
    if not (local / "qa.jsonl").is_file():
        build_suite(local)
    templates = load_templates()
    whole, ex = Frames(local), StreamExecutor(dask)
    seen = set()
    for line in (local / "qa.jsonl").read_text().splitlines():
        rec = json.loads(line)
        t, q = templates[rec["template"]], QuerySpec.model_validate(rec["params"])
        assert ex.partitioned(q)
        got = canonical(ex.run(t, q, Frames(dask)), t.type_of(q))
        assert got == canonical(t.reference(whole, q), t.type_of(q)) == rec["answer"], rec["id"]
        if t.naive is not None:
            assert canonical(ex.run(t, q, Frames(dask), naive=True), t.type_of(q)) == \
                canonical(t.naive(whole, q), t.type_of(q)), rec["id"]
        seen.add(how(t.name))
    assert {"merged", "selection", "entity"} <= seen, seen


def test_merged_pass_holds_one_part_at_a_time(layouts, monkeypatch):
    """A merged template never holds more than one part's rows: every frame the executor reads is one
    part (counted with a spy on the reader), and the answer is the whole table's."""
    from tools.queries import stream_frames
    from tools.queries.reference.frames import Frames
    from tools.queries.registry import load_templates
    from tools.queries.spec import QuerySpec

    local, dask = layouts
    sizes = []
    real = stream_frames.read_frame

    def spy(files, columns, where):
        df = real(files, columns, where)
        sizes.append((len(files), len(df)))
        return df

    monkeypatch.setattr(stream_frames, "read_frame", spy)
    t = load_templates()["event_count"]
    q = QuerySpec(template="event_count", table="readings", entity="sensor_id", time="timestamp")
    got = StreamExecutor(dask).run(t, q, Frames(dask))
    parts = table_files(dask, "readings")
    assert got == t.reference(Frames(local), q)
    assert [n for n, _ in sizes] == [1] * len(parts)
    assert max(r for _, r in sizes) < got / 2


@pytest.mark.slow
def test_views_only_world_explores_a_sample_and_both_executors_agree(layouts, tmp_path, monkeypatch):
    """A world whose data.duckdb holds views (as above 50M rows): enumerators explore the first parts
    only, stateful screening runs in DuckDB, and every kept answer is still the whole table's (pandas
    on all parts = the single-file reference) with no disagreement."""
    import json
    import shutil

    from tools.queries import stream_frames
    from tools.queries.answers import canonical
    from tools.queries.reference.frames import Frames
    from tools.queries.registry import load_templates
    from tools.queries.spec import QuerySpec
    from tools.queries.suite import build_suite

    local, dask = layouts
    b = tmp_path / "views"
    shutil.copytree(dask, b)
    (b / "data.duckdb").unlink()
    from tools.generate.duck_views import write_duckdb

    write_duckdb(b, str(b / "data"), ["readings", "sensors"], views=True)
    monkeypatch.setattr(stream_frames, "EXPLORE_ROWS", 2 * ROWS_PER_SHARD)
    suite = build_suite(b, n=24)
    assert not suite.disagreements and len(suite.records) >= 20
    templates, whole = load_templates(), Frames(local)
    fams = set()
    for line in (b / "qa.jsonl").read_text().splitlines():
        rec = json.loads(line)
        t, q = templates[rec["template"]], QuerySpec.model_validate(rec["params"])
        assert canonical(t.reference(whole, q), t.type_of(q)) == rec["answer"], rec["id"]
        fams.add(rec["family"])
    assert "stateful" in fams


@pytest.mark.slow
def test_holdout_on_a_partitioned_bundle_is_the_single_file_one(layouts, tmp_path):
    """``queries --holdout 1d --family forecast`` on a partitioned bundle: the parts keep the visible
    rows, holdout/ gets the same rows and document, and the suite is the single-file one."""
    import shutil

    import pyarrow.parquet as pq

    from tools.queries.holdout import read_holdout
    from tools.queries.suite import build_suite

    local, dask = (shutil.copytree(b, tmp_path / b.name) for b in layouts)
    for b in (local, dask):
        build_suite(b, n=6, holdout="1d", families=["forecast"])
    assert read_holdout(local) == read_holdout(dask)
    held = pq.read_table(dask / "holdout" / "readings.parquet")
    assert held.num_rows and held.equals(pq.read_table(local / "holdout" / "readings.parquet"))
    vis = [pq.read_table(p) for p in table_files(dask, "readings")]
    assert len(vis) > 1 and sum(t.num_rows for t in vis) == pq.read_metadata(local / "data" / "readings.parquet").num_rows
    assert (local / "qa.jsonl").read_text() == (dask / "qa.jsonl").read_text()
    assert '"family": "forecast"' in (dask / "qa.jsonl").read_text()


@pytest.mark.slow
def test_entity_forms_answer_as_the_whole_table(layouts):
    """Every per-entity streaming form (stateful and incident templates, answers and naive readings),
    on the candidates each template enumerates (kept or not): the answer from the parts, one part at a
    time, is exactly the whole table's."""
    from tools.queries.answers import canonical
    from tools.queries.context import open_context
    from tools.queries.reference.frames import Frames
    from tools.queries.registry import load_templates
    from tools.queries.stream import ENTITY

    local, dask = layouts
    templates, whole, ex = load_templates(), Frames(local), StreamExecutor(dask)
    ctx = open_context(local)
    checked, answered = set(), 0
    try:
        for name, t in sorted(templates.items()):
            if how(name) != "entity":
                continue
            for c in list(t.candidates(ctx))[:2]:
                for naive, fn in ((False, t.reference), (True, t.naive)):
                    if fn is None:
                        continue
                    try:
                        want = canonical(fn(whole, c.spec), t.type_of(c.spec))
                    except ValueError:
                        with pytest.raises(ValueError):
                            ex.run(t, c.spec, Frames(dask), naive=naive)
                        continue
                    got = canonical(ex.run(t, c.spec, Frames(dask), naive=naive), t.type_of(c.spec))
                    assert got == want, (name, naive, c.spec.to_json())
                    checked.add(f"{name}/naive" if naive else name)
                    answered += want is not None
    finally:
        ctx.close()
    assert len(checked & set(ENTITY)) >= 40 and answered > 70, (sorted(checked), answered)


@pytest.mark.slow
def test_streamed_stateful_suite_is_the_single_file_one(layouts, tmp_path, monkeypatch):
    """The suite with the per-entity forms answering every stateful and incident question from the
    parts (as on a views-only world, but with the same candidates and pandas screening as the
    single-file layout) is byte for byte the single-file suite."""
    import json
    import shutil

    from tools.queries import evaluate
    from tools.queries.suite import build_suite

    local, dask = (shutil.copytree(b, tmp_path / b.name) for b in layouts)
    build_suite(local, n=24)
    runs = []

    def streaming(ctx):
        key = ("stream-executor",)
        if key not in ctx.memo:
            ctx.memo[key] = StreamExecutor(ctx.bundle)
        runs.append(1)
        return ctx.memo[key]

    monkeypatch.setattr(evaluate, "executor", streaming)
    build_suite(dask, n=24)
    a = (local / "qa.jsonl").read_text()
    assert a == (dask / "qa.jsonl").read_text()
    used = [json.loads(line)["template"] for line in a.splitlines()]
    assert sum(how(name) == "entity" for name in used) >= 10 and runs, used
