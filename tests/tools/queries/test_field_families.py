"""Acceptance of the shape / detection / claim / premise families on every built-in pack: at least 6
questions of each, through every synthesis filter, with both executors agreeing; claims come true
and false in equal share; the oracle scores 100% and the naive reference agent falls for the traps."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tools.queries.context import open_context
from tools.queries.record import QARecord
from tools.queries.suite import synthesize

FAMILIES = ("shape", "detection", "claim", "false_premise", "unanswerable")
PACKS = ("ecommerce", "iot", "observability", "security", "telecom")
_SUITES: dict = {}


def families_of(pack: str) -> tuple[str, ...]:
    return FAMILIES


def suite_of(bundle):
    if bundle not in _SUITES:
        ctx = open_context(bundle)
        try:
            _SUITES[bundle] = synthesize(ctx, only={f: 6 for f in families_of(bundle.name)})
        finally:
            ctx.close()
    return _SUITES[bundle]


@pytest.mark.parametrize("pack", PACKS)
def test_every_pack_gives_six_questions_of_each_new_family(pack, pack_suites):
    s = suite_of(pack_suites[pack])
    assert not s.disagreements, [o.reason for o in s.disagreements]
    assert Counter(r["family"] for r in s.records) == {f: 6 for f in families_of(pack)}, s.shortfall
    for r in s.records:
        QARecord.model_validate(json.loads(json.dumps(r)))
    claims = [r["answer"] for r in s.records if r["family"] == "claim"]
    assert Counter(claims) == {True: 3, False: 3}
    for r in s.records:
        if r["family"] in ("false_premise", "unanswerable"):
            assert r["answer"].startswith(("false premise:", "unanswerable:"))
            assert r["naive_answer"] is not None  # the fabricated figure an agent that plays along gives
        if r["family"] == "claim":
            assert r["answer_text"].startswith("Yes" if r["answer"] else "No") and ":" in r["answer_text"]
        if r["family"] in ("claim", "shape", "detection"):  # their definitions are stated
            assert r["evidence"] and r["precise_question"]
        if r["family"] == "shape":
            assert r["answer"] and r["template"].startswith("shape_") and "Which" in r["question"]
            if pack == "ecommerce":  # an event log: shapes of hourly event counts per page, referrer, ...
                assert r["params"]["params"]["series"] == "hourly_count"


def test_oracle_is_perfect_and_naive_falls_for_false_premises(pack_suites, tmp_path):
    from tools.harness import build_context, load_responses, reference_agents, run_suite, summarize

    bundle = pack_suites["telecom"]
    records = suite_of(bundle).records
    agents, ctx = reference_agents(records, bundle), build_context(bundle)
    got = {}
    for name in ("oracle", "naive"):
        run_suite(records, agents[name](), ctx, tmp_path / name, trials=1, concurrency=2)
        got[name] = summarize(records, load_responses(tmp_path / name))
    assert got["oracle"]["accuracy"] == 1.0
    fam = got["naive"]["families"]
    assert fam["detection"]["precision"] < 1.0 or fam["detection"]["recall"] < 1.0
    assert got["oracle"]["families"]["detection"]["f1"] == 1.0
    assert fam["false_premise"]["premise_rejection_rate"] == 0.0
    assert fam["false_premise"]["fabrication_rate"] == 1.0
    assert fam["unanswerable"]["missing_data_named_rate"] == 0.0
    assert fam["claim"] == {"accuracy_true_claims": 1.0, "accuracy_false_claims": 0.0, "n": 6}
    assert got["oracle"]["families"]["false_premise"]["premise_rejection_rate"] == 1.0
    from tools.harness.report import family_metric_lines

    assert any("premise rejection rate | 0.0%" in x for x in family_metric_lines(fam))
