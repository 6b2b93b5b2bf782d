"""`chronoeval paraphrase OUT`: offline variants, idempotent appends, the report section, bad input
(exit 2) and, against the scripted OpenAI-compatible server: accepted LLM paraphrases, drifted ones
rejected by the judge, malformed JSON → deterministic fallback with a note, an unreachable server,
and a second run from the cache with zero HTTP calls."""

from __future__ import annotations

import json
import shutil
from datetime import date

import pytest
from typer.testing import CliRunner

from graph.cli import app
from knowledge.personas import load_personas
from tests.llm_server import last_user_message
from tools.bundle import verify_bundle
from tools.paraphrase import paraphrase
from tools.queries.record import load_suite

N_QUESTIONS = 5


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture
def bundle(pack_suites, tmp_path):
    """A copy of the iot bundle whose suite is cut to its first few questions (fast LLM tests)."""
    d = tmp_path / "iot"
    shutil.copytree(pack_suites["iot"], d)
    lines = (d / "qa.jsonl").read_text().splitlines()[:N_QUESTIONS]
    (d / "qa.jsonl").write_text("\n".join(lines) + "\n")
    verify_bundle(d, allow_modified=True)  # a deliberate edit: record it, as `verify --allow-modified` does
    return d


def records(bundle):
    return [json.loads(x) for x in (bundle / "qa.jsonl").read_text().splitlines()]


def test_offline_paraphrase_appends_variants_report_and_manifest(bundle):
    r = run("paraphrase", bundle)
    assert r.exit_code == 0, r.output
    recs = records(bundle)
    load_suite(bundle / "qa.jsonl")  # every record, variants included, satisfies the contract
    variants = [x for x in recs if x["variant_of"]]
    assert len(variants) == 3 * N_QUESTIONS
    canon = {x["id"]: x for x in recs if not x["variant_of"]}
    for v in variants:
        c = canon[v["variant_of"]]
        assert v["id"].startswith(c["id"] + ".p") and v["persona"] in load_personas()
        assert v["answer"] == c["answer"] and v["gold_sql"] == c["gold_sql"] and v["question"] != c["question"]
    assert recs[1]["variant_of"] == recs[0]["id"]  # variants follow their canonical question
    report = (bundle / "report.md").read_text()
    assert "## Paraphrases" in report and "## Questions" in report and "paraphraser: none" in report
    manifest = json.loads((bundle / "manifest.json").read_text())
    import hashlib

    digest = hashlib.sha256((bundle / "qa.jsonl").read_bytes()).hexdigest()
    assert digest in json.dumps(manifest["files"])


def test_rerunning_is_idempotent(bundle):
    assert run("paraphrase", bundle).exit_code == 0
    first = (bundle / "qa.jsonl").read_bytes()
    r = run("paraphrase", bundle)
    assert r.exit_code == 0 and "0 variant(s) added" in r.output
    assert (bundle / "qa.jsonl").read_bytes() == first
    more = run("paraphrase", bundle, "--per-question", "4")
    assert more.exit_code == 0
    recs = records(bundle)
    pairs = [(x["variant_of"], x["persona"]) for x in recs if x["variant_of"]]
    assert len(pairs) == len(set(pairs)) and len(pairs) == 4 * N_QUESTIONS
    assert len({x["id"] for x in recs}) == len(recs)


def test_chosen_personas_only_and_bad_input_is_a_user_error(bundle, tmp_path):
    r = run("paraphrase", bundle, "--personas", "oncall_sre,executive,noc_operator,data_engineer", "-k", "2")
    assert r.exit_code == 0, r.output
    assert {x["persona"] for x in records(bundle) if x["variant_of"]} <= {"oncall_sre", "executive", "noc_operator",
                                                                         "data_engineer"}
    bad = run("paraphrase", bundle, "--personas", "pirate")
    assert bad.exit_code == 2 and "unknown persona(s) pirate" in bad.output and "Traceback" not in bad.output
    empty = run("paraphrase", tmp_path / "nothing")
    assert empty.exit_code == 2 and "chronoeval queries" in empty.output


# ------------------------------------------------------------------------------ with the scripted LLM

def scripted_llm(paraphrases, judge=lambda sent: {"equivalent": True, "reason": "same query"}):
    """A responder: paraphrase requests → ``paraphrases(input)``; judge requests → ``judge(input)``."""
    def respond(body):
        system = body["messages"][0]["content"]
        sent = json.loads(body["messages"][1]["content"])  # the task (retries append their own messages)
        if system.startswith("You rewrite a question"):
            return paraphrases(sent)
        if system.startswith("You check that a reworded question"):
            return judge(sent)
        raise AssertionError(f"unexpected request: {system[:60]}")
    return respond


def good_variants(sent):
    """What a good model would write: valid rewordings (here made by the rules with another seed)."""
    ps = list(load_personas().values())[::-1]
    out = paraphrase(sent["canonical_question"], ps, sent["k"], seed=99, key="llm", anchor=date(2026, 1, 7))
    return {"variants": [v.text for v in out.variants]}


def test_valid_llm_paraphrases_are_accepted(bundle, llm_env):
    llm_env.respond_with(scripted_llm(good_variants))
    r = run("paraphrase", bundle)
    assert r.exit_code == 0, r.output
    texts = {x["question"] for x in records(bundle) if x["variant_of"]}
    from_llm = [good_variants(json.loads(last_user_message(b)))["variants"] for b in llm_env.requests
                if b["messages"][0]["content"].startswith("You rewrite")]
    assert len(from_llm) == N_QUESTIONS
    assert all(t in texts for vs in from_llm for t in vs)  # every valid LLM variant was kept
    report = (bundle / "report.md").read_text()
    assert "paraphraser: ChatOpenAI:scripted" in report and "LLM usage:" in report
    assert "None: every proposed variant kept" in report
    judged = [b for b in llm_env.requests if b["messages"][0]["content"].startswith("You check")]
    assert len(judged) == len(texts)  # each LLM variant was judged (slot check and LLM)
    assert "LLM:" in r.output


def test_drifted_llm_paraphrases_are_rejected_and_listed(bundle, llm_env):
    def drifted(sent):
        q = sent["canonical_question"]
        return {"variants": [q.replace("UTC on", "UTC, on").replace("2026 (excluded)", "2026 (included)")
                             .replace("(excluded)", "").replace("up to", "to") + " (rough)",
                             "Totally different: how many sensors are there?",
                             good_variants(sent)["variants"][0]]}

    def judge(sent):  # the LLM judge rejects the third as well: both verdicts must pass
        return {"equivalent": False, "reason": "the LLM judge thinks the entity filter changed"}

    llm_env.respond_with(scripted_llm(drifted, judge))
    r = run("paraphrase", bundle)
    assert r.exit_code == 0, r.output
    report = (bundle / "report.md").read_text()
    section = report[report.index("### Rejected variants"):]
    assert "slot check:" in section and "LLM judge: the LLM judge thinks" in section
    texts = {x["question"] for x in records(bundle) if x["variant_of"]}
    assert "Totally different: how many sensors are there?" not in texts
    assert len(texts) == 3 * N_QUESTIONS  # the deterministic paraphraser filled every gap


def test_malformed_json_is_retried_then_the_rules_take_over_with_a_note(bundle, llm_env):
    llm_env.respond_with(scripted_llm(lambda sent: '{"variants": ["cut off'))
    r = run("paraphrase", bundle)
    assert r.exit_code == 0, r.output
    paraphrase_calls = [b for b in llm_env.requests if b["messages"][0]["content"].startswith("You rewrite")]
    assert len(paraphrase_calls) == 3 * N_QUESTIONS  # 1 call + 2 retries per question
    assert "not valid" in paraphrase_calls[1]["messages"][-1]["content"]
    report = (bundle / "report.md").read_text()
    assert "invalid output after 3 attempt(s)" in report and "used the deterministic path" in report
    assert sum(1 for x in records(bundle) if x["variant_of"]) == 3 * N_QUESTIONS


def test_an_unreachable_server_is_reported_and_the_command_completes_offline(bundle, monkeypatch):
    monkeypatch.setenv("CHRONOEVAL_MODEL", "openai:gpt-4.1-mini")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("CHRONOEVAL_LLM_RETRIES", "0")
    r = run("paraphrase", bundle)
    assert r.exit_code == 0, r.output
    assert "cannot reach the LLM" in r.output and "127.0.0.1:9" in r.output and "Traceback" not in r.output
    assert "Continuing offline" in (bundle / "report.md").read_text()
    assert sum(1 for x in records(bundle) if x["variant_of"]) == 3 * N_QUESTIONS


def test_a_second_run_with_the_cache_makes_zero_http_calls(bundle, llm_env, tmp_path):
    twin = tmp_path / "twin"
    shutil.copytree(bundle, twin)
    llm_env.respond_with(scripted_llm(good_variants))
    assert run("paraphrase", bundle).exit_code == 0
    calls = llm_env.calls
    assert calls > 0
    r = run("paraphrase", twin)
    assert r.exit_code == 0, r.output
    assert llm_env.calls == calls  # every response came from the on-disk cache
    assert (twin / "qa.jsonl").read_bytes() == (bundle / "qa.jsonl").read_bytes()
    assert "cache hit" in (twin / "report.md").read_text()


def test_a_model_that_cannot_be_set_up_is_a_user_error(bundle, monkeypatch):
    monkeypatch.setenv("CHRONOEVAL_MODEL", "nosuchprovider:some-model")
    r = run("paraphrase", bundle)
    assert r.exit_code == 2 and "CHRONOEVAL_MODEL" in r.output and "Traceback" not in r.output
    assert not any(x["variant_of"] for x in records(bundle))  # nothing written
