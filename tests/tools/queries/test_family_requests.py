"""Asking for the new families: chat requests ("more forecasting questions", "no unanswerable
questions"), the spec's query plan (a family in the mix), and forecasts without held-back data."""

from __future__ import annotations

import shutil

import pytest

from tools.chat.ops import parse_operations


@pytest.mark.parametrize("text,op,family,topic", [
    ("more forecasting questions", "add_questions", "forecast", None),
    ("more shape and trend questions", "add_questions", "shape", None),
    ("more false premise questions about temperature", "add_questions", "false_premise", "temperature_c"),
    ("more claims questions", "add_questions", "claim", None),
    ("more questions about battery", "add_questions", None, "battery"),
    ("more stateful questions", "add_questions", "stateful", None),
    ("no unanswerable questions", "drop_questions", "unanswerable", None),
    ("No false premise questions", "drop_questions", "false_premise", None),
    ("drop the detection questions", "drop_questions", "detection", None),
])
def test_chat_requests_name_the_families(text, op, family, topic):
    from knowledge.packs import load_pack
    from tools.chat.reader import read_request

    (got,) = read_request(text, load_pack("iot")).ops
    assert (got.op, got.family, got.topic) == (op, family, topic)


def test_dropping_a_family_in_chat_removes_its_questions(pack_suites, tmp_path):
    from agents.chat_apply import apply_ops
    from tools.describe.apply import RefineError
    from tools.queries.refresh import read_qa, write_qa

    d = tmp_path / "iot"
    shutil.copytree(pack_suites["iot"], d)
    records = read_qa(d)
    fake = {**records[0], "id": "q9999", "family": "unanswerable", "template": "unanswerable"}
    write_qa(d, [*records, fake])
    change = apply_ops(d, parse_operations([{"op": "drop_questions", "family": "unanswerable"}]))
    assert change.removed == ["q9999"] and len(read_qa(d)) == len(records)
    with pytest.raises(RefineError, match="--holdout 1d --family forecast"):
        apply_ops(d, parse_operations([{"op": "add_questions", "family": "forecast"}]))


def test_a_family_in_the_query_plan_gets_its_quota(pack_suites, tmp_path):
    from tools.queries.context import open_context
    from tools.queries.suite import MIN_PER_FAMILY, quotas

    d = tmp_path / "telecom"
    shutil.copytree(pack_suites["telecom"], d)
    spec = (d / "spec.yaml").read_text()
    assert "query_plan:" not in spec  # the pack's default plan
    (d / "spec.yaml").write_text(spec + "query_plan:\n  mix: {stateless: 0.3, stateful: 0.4, incident: 0.3, "
                                 "shape: 0.2, claim: 0.2, forecast: 0.2}\n")
    ctx = open_context(d)
    try:
        q = quotas(ctx, None)
    finally:
        ctx.close()
    assert q["shape"] >= MIN_PER_FAMILY and q["claim"] >= MIN_PER_FAMILY
    assert "forecast" not in q  # nothing held back: no forecast quota


def test_asking_for_forecasts_holds_the_last_day_back(pack_suites, tmp_path):
    from tools.queries.holdout import read_holdout
    from tools.queries.suite import build_suite

    d = tmp_path / "ecommerce"
    shutil.copytree(pack_suites["ecommerce"], d)
    suite = build_suite(d, n=3, families=["forecast"])
    assert read_holdout(d)["horizon"] == "1d"
    assert sum(r["family"] == "forecast" for r in suite.records) >= 6


def test_favouring_a_template_of_an_extra_family_adds_the_family():
    from agents.query_synthesizer import preferred_families

    assert preferred_families(["shape_spike", "sequence_match", "claim_check", "forecast_mean"]) == ["shape", "claim"]
    assert preferred_families(["sequence_match"]) == []
