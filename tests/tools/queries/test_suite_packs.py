"""Acceptance on every built-in pack: the default suite's counts, the qa.jsonl contract, gold SQL
re-run in a fresh connection, naive answers, template coverage and determinism."""

from __future__ import annotations

import json

import pytest

from knowledge.packs import load_pack
from tools.generate import generate_bundle
from tools.queries.answers import agree
from tools.queries.record import gold_sql_mismatches, load_suite
from tools.queries.registry import load_templates
from tools.queries.suite import MIN_PER_FAMILY, build_suite

pytestmark = pytest.mark.slow
PACKS = ["ecommerce", "iot", "telecom", "observability", "security"]


@pytest.fixture(scope="module")
def suites(tmp_path_factory):
    """Each pack generated at its default size, with its default suite."""
    out = {}
    for pack in PACKS:
        d = tmp_path_factory.mktemp(pack) / "b"
        generate_bundle(load_pack(pack), d, force=True)
        out[pack] = (d, build_suite(d, seed=0))
    return out


@pytest.mark.parametrize("pack", PACKS)
def test_default_suite_meets_counts_and_contract(suites, pack):
    d, suite = suites[pack]
    assert not suite.disagreements, [o.reason for o in suite.disagreements]
    fams = {f: sum(r["family"] == f for r in suite.records) for f in ("stateless", "stateful", "incident")}
    assert all(n >= MIN_PER_FAMILY for n in fams.values()), (pack, fams, suite.shortfall)
    assert len(suite.records) >= 36
    recs = load_suite(d / "qa.jsonl")  # validates every record against the contract
    assert [r.id for r in recs] == [r["id"] for r in suite.records]
    assert sum(r.contrast for r in recs if r.family == "incident") >= 1
    assert "## Questions" in (d / "report.md").read_text()


@pytest.mark.parametrize("pack", PACKS)
def test_gold_sql_reproduces_every_answer_in_a_fresh_connection(suites, pack):
    d, suite = suites[pack]
    assert gold_sql_mismatches(d / "data.duckdb", suite.records) == []


@pytest.mark.parametrize("pack", PACKS)
def test_stateful_questions_have_a_different_naive_answer(suites, pack):
    templates = load_templates()
    for r in suites[pack][1].records:
        if r["family"] == "stateful" and templates[r["template"]].naive is not None:
            assert r["naive_answer"] is not None and not agree(r["naive_answer"], r["answer"]), r["id"]


def test_suites_cover_at_least_25_templates(suites):
    used = {r["template"] for _, s in suites.values() for r in s.records}
    assert len(used) >= 25, sorted(used)


def test_same_seed_same_bytes(suites, tmp_path):
    d, _ = suites["iot"]
    first = (d / "qa.jsonl").read_bytes()
    build_suite(d, seed=0)
    assert (d / "qa.jsonl").read_bytes() == first
    build_suite(d, seed=1)
    assert (d / "qa.jsonl").read_bytes() != first
    json.loads(first.splitlines()[0])
