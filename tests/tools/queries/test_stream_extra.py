"""Streaming forms of the shape, detection, claim, premise, forecast and cross-table incident templates
(tools/queries/stream_extra.py): on a world too big to read any table whole, every one of them still
answers, and its answer and naive reading are exactly the whole table's."""

from __future__ import annotations

import pytest

from knowledge.packs import load_pack
from tools.bundle.layout import table_files
from tools.generate import generate_bundle
from tools.queries import stream
from tools.queries.stream import StreamExecutor
from tools.queries.stream_extra import EXTRA_ENTITY, EXTRA_SELECTION, REWRITTEN

pytestmark = pytest.mark.slow
TABLES = ("transport_link", "core_node", "cell_site")
EXTRA = ("shape", "detection", "claim", "false_premise", "unanswerable", "forecast")


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    """The telecom pack (two related tables: the cross-table incident) with every incident variant (peer
    and fleet baselines, threshold counts), one file per table and one part per shard, the last day held
    back on both."""
    from tools.generate.distributed import cluster_client
    from tools.queries.holdout import split_holdout

    root = tmp_path_factory.mktemp("stream-extra")
    kw = {"scale": 1.0, "rows_per_shard": 500}
    spec = load_pack("telecom")
    spec = spec.model_copy(update={"query_plan": spec.query_plan.model_copy(
        update={"variants": ["peer_baseline", "fleet_baseline", "threshold_count"]})})
    generate_bundle(spec, root / "local", **kw)
    client, cluster = cluster_client(None, n_workers=1, memory_limit=None)
    try:
        generate_bundle(spec, root / "dask", engine="dask", client=client, **kw)
    finally:
        client.close()
        cluster.close()
    for b in ("local", "dask"):
        split_holdout(root / b, "1d")
    return root / "local", root / "dask"


def test_every_extra_template_streams_the_whole_tables_answer(layouts, monkeypatch):
    """With every table "too big to read whole" (the threshold at 0 rows: reading one whole raises
    NotStreamed), each template of the extra families and of the incident family (its variants and the
    cross-table incident included) answers from the parts, and equals the single-file reference on the
    candidates it enumerates (answer and naive)."""
    from tools.queries.answers import canonical
    from tools.queries.context import open_context
    from tools.queries.reference.frames import Frames
    from tools.queries.registry import load_templates

    local, dask = layouts
    assert min(len(table_files(dask, t)) for t in TABLES) > 1, "the test must cover several parts"
    monkeypatch.setattr(stream, "COLUMNS_MAX_ROWS", 0)
    templates, whole, ex = load_templates(), Frames(local), StreamExecutor(dask)
    ctx = open_context(local)
    checked: dict[str, int] = {}
    variants_seen = {"population": 0, "threshold": 0}
    try:
        for name, t in sorted(templates.items()):
            if t.family not in EXTRA and t.family != "incident":
                continue
            cands = list(t.candidates(ctx))
            variants = [c for c in cands if c.spec.p("baseline_entities") is not None or c.spec.p("rule") == "threshold"]
            specs = [c.spec for c in cands[:3] + variants[:3]]
            if name == "forecast_mean":  # this pack has no event log: its rows counted instead
                specs += [s.model_copy(update={"template": "forecast_count"}) for s in specs]
            for q in specs:
                t = templates[q.template]
                for naive, fn in ((False, t.reference), (True, t.naive)):
                    if fn is None:
                        continue
                    want = canonical(fn(whole, q), t.type_of(q))
                    got = canonical(ex.run(t, q, Frames(dask), naive=naive), t.type_of(q))
                    assert got == want, (t.name, naive, q.to_json())
                    key = f"{t.name}/naive" if naive else t.name
                    variants_seen["population"] += q.p("baseline_entities") is not None
                    variants_seen["threshold"] += q.p("rule") == "threshold"
                    checked[key] = checked.get(key, 0) + 1
    finally:
        ctx.close()
    forms = set(EXTRA_SELECTION) | set(EXTRA_ENTITY) | set(REWRITTEN) | {"incident_vs_baseline/naive"}
    assert forms <= set(checked), sorted(forms - set(checked))
    assert variants_seen["population"] and variants_seen["threshold"], variants_seen
    assert {"unanswerable", "forecast_mean", "forecast_count"} <= set(checked), sorted(checked)


def test_no_form_still_refuses_on_a_big_world(layouts, monkeypatch):
    """A template without a streaming form is still not asked there (its whole-table read refused)."""
    from tools.queries.reference.frames import Frames
    from tools.queries.registry import Template
    from tools.queries.spec import QuerySpec
    from tools.queries.stream_entity import NotStreamed

    _, dask = layouts
    monkeypatch.setattr(stream, "COLUMNS_MAX_ROWS", 0)
    q = QuerySpec(template="whole_read", table="cell_site", entity="Cell_ID", time="Timestamp")
    t = Template("whole_read", "stateless", "integer", lambda f, q: len(f.table(q.table)), None, None, None)
    with pytest.raises(NotStreamed):
        StreamExecutor(dask).run(t, q, Frames(dask))


def test_claim_explanation_on_a_views_only_world_reads_all_the_data(layouts, tmp_path, monkeypatch):
    """On a world whose data.duckdb holds views (candidates explored on the first parts only), a claim's
    answer_text ('No: 3 cells had no such reading (e.g. ...)') still comes from every part's selected
    rows, read one part at a time: the single-file bundle's text, word for word."""
    import shutil

    from tools.generate.duck_views import write_duckdb
    from tools.queries import stream_frames
    from tools.queries.context import open_context
    from tools.queries.reference.frames import Frames
    from tools.queries.registry import load_templates
    from tools.queries.stream import explain, explore_on_sample

    local, dask = layouts
    b = tmp_path / "views"
    shutil.copytree(dask, b)
    (b / "data.duckdb").unlink()
    write_duckdb(b, str(b / "data"), list(TABLES), views=True)
    monkeypatch.setattr(stream_frames, "EXPLORE_ROWS", 1_000)
    t = load_templates()["claim_check"]
    whole, small, big = Frames(local), open_context(local), open_context(b)
    try:
        explore_on_sample(big)  # as build_suite does
        assert big.memo.get(("stream-sampled",)), "the views-only world explores a sample"
        cands = [c for c in t.candidates(small) if c.spec.table == "cell_site"][:6]
        assert cands
        reads, real = [], stream_frames.read_frame

        def spy(files, columns, where):
            reads.append(len(files))
            return real(files, columns, where)

        for c in cands:
            answer = t.reference(whole, c.spec)
            monkeypatch.setattr(stream_frames, "read_frame", spy)
            text = explain(big, t, c, answer)
            monkeypatch.setattr(stream_frames, "read_frame", real)
            assert text == t.explain(small, c, answer), c.spec.to_json()
        assert reads and set(reads) == {1}, "one part at a time, never the table whole"
    finally:
        small.close()
        big.close()


@pytest.fixture(scope="module")
def links(tmp_path_factory):
    """A composite-key world (a link is Device_ID + Interface_ID: the spec `chronoeval infer` fits on the
    public link table, with one degraded link) in one file and in parts."""
    from tests.reference_data import reference_dir
    from tools.generate.distributed import cluster_client
    from tools.infer import infer
    from tools.spec.model import Spec

    result, _ = infer([reference_dir() / "transport_link_data.csv"], fidelity=False)
    raw = result.spec.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    ent = raw["entities"][0]["name"]
    raw["incidents"] = [{"kind": "kpi_degradation", "id": "eth2_loss", "target": {"entity": ent, "ids": ["RTR_001/eth2"]},
                         "window": {"start": "day 1 06:00", "duration": "4h"}, "effects": {"Packet_Loss_Percent": "+3"}}]
    spec, root = Spec.model_validate(raw), tmp_path_factory.mktemp("links")
    generate_bundle(spec, root / "local", seed=1, rows_per_shard=400)
    client, cluster = cluster_client(None, n_workers=1, memory_limit=None)
    try:
        generate_bundle(spec, root / "dask", seed=1, rows_per_shard=400, engine="dask", client=client)
    finally:
        client.close()
        cluster.close()
    return root / "local", root / "dask"


def test_composite_key_templates_stream_per_link(links, monkeypatch):
    """A composite entity key on a table in parts, every table too big to read whole: the keyed templates
    (stateless merges and selections, per-entity stateful and incident forms) answer per full key from
    the parts, exactly as on one file, answer and naive reading."""
    from tools.queries.answers import canonical
    from tools.queries.composite import KEYED
    from tools.queries.context import open_context
    from tools.queries.reference.frames import Frames
    from tools.queries.registry import load_templates
    from tools.queries.stream import how

    local, dask = links
    table = next(p.name for p in (dask / "data").iterdir() if p.is_dir())
    assert len(table_files(dask, table)) > 1, "the test must cover several parts"
    monkeypatch.setattr(stream, "COLUMNS_MAX_ROWS", 0)
    templates, whole, ex = load_templates(), Frames(local), StreamExecutor(dask)
    ctx = open_context(local, seed=3)
    paths: dict[str, set] = {}
    try:
        for name in sorted(KEYED):
            t = templates[name]
            cands = [c for c in t.candidates(ctx) if c.spec.entity_parts][:2]
            for c in cands:
                for naive, fn in ((False, t.reference), (True, t.naive)):
                    if fn is None:
                        continue
                    try:
                        want = canonical(fn(whole, c.spec), t.type_of(c.spec))
                    except ValueError:  # not expressible on this key: the parts say so too
                        with pytest.raises(ValueError):
                            ex.run(t, c.spec, Frames(dask), naive=naive)
                        continue
                    got = canonical(ex.run(t, c.spec, Frames(dask), naive=naive), t.type_of(c.spec))
                    assert got == want, (name, naive, c.spec.to_json())
                    paths.setdefault(how(name, naive), set()).add(name)
    finally:
        ctx.close()
    assert {"merged", "selection", "entity"} <= set(paths), paths
    assert len(set().union(*paths.values())) >= 15, paths
