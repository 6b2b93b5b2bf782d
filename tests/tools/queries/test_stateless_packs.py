"""Stateless templates on small generated packs: both executors agree on every candidate tried,
every template keeps questions somewhere, and ``exists`` keeps both yes and no answers."""

from collections import defaultdict

import pytest

from tools.queries.context import open_context
from tools.queries.evaluate import evaluate
from tools.queries.registry import load_templates

STATELESS = ["event_count", "distinct_count", "event_rate", "exists", "attribute_mean", "attribute_std",
             "attribute_percentile", "attribute_extreme", "conditional_aggregate", "group_aggregate",
             "top_k_by_aggregate"]
PACKS = {"iot": 0.1, "ecommerce": 0.1, "telecom": 0.5, "observability": 0.5, "security": 0.1}
PER_TEMPLATE = 4


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    from knowledge.packs import resolve_spec
    from tools.generate import generate_bundle

    templates = load_templates()
    out = defaultdict(list)
    for pack, scale in PACKS.items():
        bundle = tmp_path_factory.mktemp(pack) / "b"
        generate_bundle(resolve_spec(pack), bundle, scale=scale, force=True)
        ctx = open_context(bundle, seed=3)
        try:
            for name in STATELESS:
                t = templates[name]
                cands = list(t.candidates(ctx))
                for i in ctx.rng.permutation(len(cands))[:PER_TEMPLATE]:
                    out[name].append((pack, evaluate(t, cands[i], ctx)))
        finally:
            ctx.close()
    return out


@pytest.mark.slow
def test_executors_agree_on_every_candidate(outcomes):
    bad = [(n, p, o.reason, o.gold_sql) for n, os_ in outcomes.items() for p, o in os_ if o.disagreement]
    assert not bad


@pytest.mark.slow
@pytest.mark.parametrize("name", STATELESS)
def test_every_template_keeps_questions(outcomes, name):
    kept = [o for _p, o in outcomes[name] if o.kept]
    assert kept, [o.reason for _p, o in outcomes[name]]
    for o in kept:
        assert o.question.endswith((".", "?")) and "None" not in o.question
        assert o.gold_sql.lstrip().upper().startswith("WITH")


@pytest.mark.slow
def test_exists_keeps_yes_and_intended_no(outcomes):
    kept = [o for _p, o in outcomes["exists"] if o.kept]
    assert any(o.answer is True for o in kept)
    assert any(o.answer is False for o in kept)
    assert all(o.candidate.negative for o in kept if o.answer is False)


@pytest.mark.slow
def test_conditional_aggregate_naive_differs(outcomes):
    for _p, o in outcomes["conditional_aggregate"]:
        if o.kept:
            assert o.naive is not None and o.naive != o.answer
