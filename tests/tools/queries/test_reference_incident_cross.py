"""Issue 19's conjunction across related tables (``incident_cross_table``): "during the link incident, on
how many cell sites / core nodes did X also move?". On the public reference tables (a transport link
degrades 00:00-06:00 UTC on 2 January; its cells lose connections and availability; the core nodes get a
modest CPU bump) both executors agree with plain-Python loops over the CSV rows, the negative controls
answer 0 and the naive reading (the incident table alone) differs. On the generated telecom pack the
candidates align with the manifest and their contrasts answer 0."""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from datetime import datetime

import pandas as pd
import pytest

from tests.reference_data import reference_dir
from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window

REF = reference_dir()
W = Window(start="2026-01-02T00:00:00+00:00", end="2026-01-02T06:00:00+00:00")
BASE = {"start": "2026-01-01T00:00:00+00:00", "end": "2026-01-01T06:00:00+00:00"}
LINK = {"table": "transport_link", "entity": "Device_ID", "time": "Timestamp", "key": "Packet_Loss_Percent",
        "direction": "up"}
TABLES = {"transport_link": ("transport_link_with_inc_data.csv", "Device_ID"),
          "core_node": ("core_node_with_inc_data.csv", "Core_Node_ID"),
          "cell_site": ("cell_site_with_inc_data.csv", "Cell_ID")}
OTHER_LINKS = EntityFilter(predicates=[Predicate(column="Transport_Device_ID", op="!=", value="RTR_001")])


def _plain(table: str, key: str, up: bool, n: float, keep=lambda r: True) -> int:
    """Entities whose mean in W is beyond n sample SDs of their own readings in BASE, from the CSV."""
    name, ent = TABLES[table]
    lo, hi = datetime.fromisoformat(W.start), datetime.fromisoformat(W.end)
    blo, bhi = datetime.fromisoformat(BASE["start"]), datetime.fromisoformat(BASE["end"])
    w, b = defaultdict(list), defaultdict(list)
    with (REF / name).open(newline="") as f:
        for r in csv.DictReader(f):
            if not keep(r):
                continue
            t, v = datetime.fromisoformat(r["Timestamp"]), float(r[key])
            if lo <= t < hi:
                w[r[ent]].append(v)
            elif blo <= t < bhi:
                b[r[ent]].append(v)
    n_hit = 0
    for e, vals in w.items():
        if len(b.get(e, [])) < 2:
            continue
        d, s = statistics.fmean(vals) - statistics.fmean(b[e]), statistics.stdev(b[e])
        n_hit += (d > n * s) if up else (d < -n * s)
    return n_hit


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    from tests.tools.queries.conftest import TinyBundle

    frames = {}
    for table, (name, _e) in TABLES.items():
        df = pd.read_csv(REF / name)
        df["Timestamp"] = pd.to_datetime(df["Timestamp"], utc=True)
        frames[table] = df
    return TinyBundle(tmp_path_factory.mktemp("cross") / "b", frames)


def cross(table: str, entity: str, key: str, direction: str, n: float, f: EntityFilter | None = None) -> QuerySpec:
    return QuerySpec(template="incident_cross_table", table=table, entity=entity, time="Timestamp", window=W,
                     entity_filter=f, params={"key": key, "direction": direction, "n": n, "baseline": BASE,
                                              "source": LINK})


MAIN = [("cell_site", "Cell_ID", "RRC_ConnEstabFail", "up", 2), ("cell_site", "Cell_ID", "Cell_Availability", "down", 3),
        ("core_node", "Core_Node_ID", "CPU_Load", "up", 0.5)]


@pytest.mark.parametrize(("table", "entity", "key", "direction", "n"), MAIN)
def test_related_tables_that_moved_during_the_link_incident(ref, table, entity, key, direction, n):
    q = cross(table, entity, key, direction, n)
    want = _plain(table, key, direction == "up", n)
    assert ref.answer(q) == want > 0
    naive = _plain("transport_link", "Packet_Loss_Percent", True, n)  # the degraded link itself
    assert ref.naive(q) == naive == 1 != want


CONTROLS = [("cell_site", "Cell_ID", "RRC_ConnEstabFail", "up", 2, OTHER_LINKS),  # cells behind other links
            ("cell_site", "Cell_ID", "DL_PRB_Utilization", "up", 2, None),          # a key nothing moved
            ("core_node", "Core_Node_ID", "MM_AttachedUEs", "up", 2, None),
            ("core_node", "Core_Node_ID", "CPU_Load", "up", 2, None)]  # +5 CPU is within one SD here


@pytest.mark.parametrize(("table", "entity", "key", "direction", "n", "f"), CONTROLS)
def test_negative_controls_answer_zero(ref, table, entity, key, direction, n, f):
    keep = (lambda r: r["Transport_Device_ID"] != "RTR_001") if f is not None else (lambda r: True)
    assert _plain(table, key, direction == "up", n, keep) == 0
    q = cross(table, entity, key, direction, n, f)
    assert ref.answer(q) == 0 and ref.naive(q) == 1  # 'it rose too' would be wrong
    if f is not None:  # the filter matters: over every cell the answer is not 0
        assert ref.answer(q.model_copy(update={"entity_filter": None})) == _plain(table, key, True, n) > 0


def test_the_template_is_an_incident_template_with_a_naive_reading():
    from tools.queries.registry import load_templates

    t = load_templates()["incident_cross_table"]
    assert (t.family, t.answer_type) == ("incident", "integer") and t.naive is not None and t.natural is not None
    with pytest.raises(ValueError, match="baseline"):
        t.sql(cross("core_node", "Core_Node_ID", "CPU_Load", "up", 2).model_copy(update={"params": {"key": "CPU_Load"}}))


@pytest.fixture(scope="module")
def telecom(tmp_path_factory):
    """The telecom pack at full scale (6 core nodes, 5 of them behind cells of the degraded link)."""
    from knowledge.packs import resolve_spec
    from tools.generate import generate_bundle
    from tools.queries.context import open_context
    from tools.queries.evaluate import evaluate
    from tools.queries.registry import load_templates

    d = tmp_path_factory.mktemp("tel") / "b"
    generate_bundle(resolve_spec("telecom"), d, scale=1.0, force=True)
    t = load_templates()["incident_cross_table"]
    ctx = open_context(d, seed=3)
    try:
        outs = [evaluate(t, c, ctx) for c in t.candidates(ctx)]
        from tools.queries.natural import natural

        words = [natural(t, o.candidate, ctx, o.question) for o in outs if o.kept]
        yield ctx, outs, words
    finally:
        ctx.close()


def test_pack_candidates_align_with_the_manifest(telecom):
    ctx, outs, _w = telecom
    assert not [o.reason for o in outs if o.disagreement]
    by_table = {r["table"]: r for r in ctx.incidents}
    kept = [o for o in outs if o.kept]
    mains = {o.candidate.spec.table: o.answer for o in kept if not o.candidate.contrast}
    assert mains == {t: len(by_table[t]["entities"]) for t in ("cell_site", "core_node")}
    assert {o.candidate.hints["variant"] for o in kept if o.candidate.contrast} >= {"other_pop"}
    for o in kept:
        assert o.naive == 1 and (o.answer == 0) == o.candidate.contrast
        assert o.candidate.spec.window.start_dt == datetime.fromisoformat(by_table["transport_link"]["start"])


def test_core_nodes_are_related_through_the_cells(telecom):
    from tools.queries.templates.incident_cross import related
    from tools.queries.templates.incident_facts import incidents

    ctx, _o, _w = telecom
    root = next(i for i in incidents(ctx) if i.t.name == "transport_link")
    core = next(r for r in ctx.incidents if r["table"] == "core_node")
    rel = related(ctx, root, ctx.catalog["core_node"])
    assert list(rel.ids) == sorted(core["entities"]) and len(rel.ids) == 5
    assert "cell site whose Transport_Device_ID is the affected transport link" in rel.not_words


def test_natural_wording_is_short_and_the_evidence_defines_the_rule(telecom):
    _ctx, outs, words = telecom
    assert words
    for (question, evidence), o in zip(words, [o for o in outs if o.kept], strict=True):
        assert len(question.split()) <= 22 and question.endswith("?") and "incident" in question
        assert "standard deviations" in evidence and "same hours on 1 January" in evidence
        assert f"more than {o.candidate.spec.p('n'):g}" in evidence
        assert ("Not linked to it:" in evidence) == (o.candidate.hints["variant"] == "other_pop")


def test_links_are_related_through_the_cells_own_foreign_key(telecom):
    """The foreign key on the incident table's rows: cells → the links they name as Transport_Device_ID."""
    import dataclasses

    from tools.queries.templates.incident_cross import related
    from tools.queries.templates.incident_facts import incidents

    ctx, _o, _w = telecom
    root = next(i for i in incidents(ctx) if i.t.name == "transport_link")
    cells = ["CELL_0", "CELL_1", "CELL_2"]
    as_cells = dataclasses.replace(root, t=ctx.catalog["cell_site"], ids=cells)
    rel = related(ctx, as_cells, ctx.catalog["transport_link"])
    assert (rel.filter.table, rel.filter.key, rel.filter.ref) == ("cell_site", "Device_ID", "Transport_Device_ID")
    links = ctx.con.execute("SELECT DISTINCT Transport_Device_ID FROM cell_site WHERE Cell_ID IN "
                            "('CELL_0', 'CELL_1', 'CELL_2') ORDER BY 1").fetchall()
    assert list(rel.ids) == [r[0] for r in links] and rel.not_words.startswith("that one of the affected")


def test_the_record_lists_the_incident_table_too(telecom):
    import dataclasses

    from tools.queries.natural import natural
    from tools.queries.suite import outcome_record

    ctx, outs, _w = telecom
    o = next(o for o in outs if o.kept and o.candidate.spec.table == "core_node")
    question, evidence = natural(o.template, o.candidate, ctx, o.question)
    rec = outcome_record(dataclasses.replace(o, question=question, evidence=evidence, precise_question=o.question),
                         "q0001", ctx)
    assert rec["tables"] == ["core_node", "transport_link"] and rec["answer"] == o.answer
    assert rec["naive_answer"] == 1 and rec["evidence"] and rec["precise_question"]
