"""Incident templates on small generated packs: both executors agree on every candidate, each pack
keeps enough incident questions, ``incident_affected_count`` agrees with the manifest, and questions
where finding the incident is the task do not give away its window or entities."""

import re
from collections import Counter
from datetime import datetime

import pytest

from tools.queries.context import open_context
from tools.queries.evaluate import evaluate
from tools.queries.registry import load_templates

pytestmark = pytest.mark.slow
PACKS = {"iot": 0.1, "ecommerce": 0.1, "telecom": 0.5, "observability": 0.5, "security": 0.1}
INCIDENT = ["incident_exists", "incident_kpi", "incident_affected_count", "incident_top_k",
            "incident_worst_entity", "incident_vs_baseline", "incident_cross_entity", "incident_cross_table"]
HIDDEN = [t for t in INCIDENT if t != "incident_exists"]  # the incident is named, never its window


@pytest.fixture(scope="module")
def packs(tmp_path_factory):
    """pack → (incident records by id, [(template name, outcome)])."""
    from knowledge.packs import resolve_spec
    from tools.generate import generate_bundle

    templates = load_templates()
    out = {}
    for pack, scale in PACKS.items():
        bundle = tmp_path_factory.mktemp(pack) / "b"
        generate_bundle(resolve_spec(pack), bundle, scale=scale, force=True)
        ctx = open_context(bundle, seed=3)
        try:
            res = [(name, evaluate(templates[name], c, ctx)) for name in INCIDENT
                   for c in templates[name].candidates(ctx)]
        finally:
            ctx.close()
        out[pack] = ({r["id"]: r for r in ctx.incidents}, res)
    return out


def test_executors_agree_on_every_candidate(packs):
    bad = [(p, n, o.reason) for p, (_i, res) in packs.items() for n, o in res if o.disagreement]
    assert not bad


@pytest.mark.parametrize("pack", PACKS)
def test_each_pack_keeps_enough_incident_questions(packs, pack):
    _incs, res = packs[pack]
    kept = [(n, o) for n, o in res if o.kept]
    assert len(kept) >= 12, Counter(o.reason for _n, o in res if not o.kept)
    assert any(not o.candidate.contrast for _n, o in kept) and any(o.candidate.contrast for _n, o in kept)
    for _n, o in kept:
        assert o.candidate.incident_id and o.question.endswith(("?", ".")) and "None" not in o.question


@pytest.mark.parametrize("name", INCIDENT)
def test_every_template_keeps_questions_somewhere(packs, name):
    assert any(n == name and o.kept for _i, res in packs.values() for n, o in res)


def test_affected_count_matches_the_manifest(packs):
    seen = 0
    for incs, res in packs.values():
        for n, o in res:
            if n == "incident_affected_count" and o.kept and not o.candidate.contrast:
                assert o.answer == len(incs[o.candidate.incident_id]["entities"]), o.question
                seen += 1
    assert seen


def _clock(iso: str) -> str:
    return datetime.fromisoformat(iso).strftime("%H:%M UTC")


def test_main_questions_do_not_give_the_incident_away(packs):
    for incs, res in packs.values():
        for n, o in res:
            c = o.candidate
            if not o.kept or n not in HIDDEN:
                continue
            rec = incs[c.incident_id]
            if c.contrast and c.hints.get("variant") == "baseline_window":
                assert "(included)" in o.question and "(excluded)" in o.question  # the baseline is explicit
                continue
            assert "(included)" not in o.question, o.question
            assert _clock(rec["start"]) not in o.question and _clock(rec["end"]) not in o.question
            for e in rec["entities"]:
                assert not re.search(rf"\b{re.escape(str(e))}\b", o.question), (e, o.question)
