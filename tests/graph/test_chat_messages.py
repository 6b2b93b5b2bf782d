"""Chat says what it did in plain sentences and does what was asked (issue 17): counts in a request
are honoured, new incident questions get the paraphrases the suite's questions had (or the reply
says which got fewer), a persona's reply accounts for every question, and a script whose requests
failed exits non-zero."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from typer.testing import CliRunner

from graph.cli import app
from tests.graph.test_chat import _say
from tools.queries.refresh import read_qa


def _copy(pack_suites, pack, tmp_path):
    dst = tmp_path / pack
    shutil.copytree(pack_suites[pack], dst)
    return dst


def test_a_count_in_the_request_is_honoured_and_said_in_words(pack_suites, tmp_path):
    b = _copy(pack_suites, "iot", tmp_path)
    turns = _say(b, "add a spike on 5 sensors on day 2 at 10:00 for 2 hours")
    first = turns[0]["lines"][0]
    assert turns[0]["op"] == "add_incident", turns
    assert "on 5 random sensor entities, from day 2 10:00 for 2h" in first, first
    assert "{" not in " ".join(turns[0]["lines"]) and "'random'" not in first  # sentences, not Python dicts
    inc = next(i for i in json.loads((b / "incidents.json").read_text())["incidents"] if i["id"] == "chat_spike_1")
    assert len(inc["entities"]) == 5


@pytest.mark.slow
def test_new_incident_questions_get_the_paraphrases_the_suite_had(pack_suites, tmp_path):
    from agents.paraphraser import paraphrase_bundle
    from knowledge.personas import load_personas
    from tools.paraphrase.personas import personas_for

    b = _copy(pack_suites, "iot", tmp_path)
    paraphrase_bundle(b, personas_for("iot", load_personas())[:2], 2)
    before = {r["id"] for r in read_qa(b) if not r.get("variant_of")}
    turns = _say(b, "add an outage on day 2 at 10:00 for 2 hours")
    said = " ".join(turns[0]["lines"])
    canon = {r["id"] for r in read_qa(b) if not r.get("variant_of")}
    variants: dict[str, int] = {}
    for r in read_qa(b):
        if r.get("variant_of"):
            variants[r["variant_of"]] = variants.get(r["variant_of"], 0) + 1
    new = sorted(canon - before)
    assert new
    assert re.search(r"paraphrases: the \d+ new question\(s\) got \d+ variant\(s\), 2 each as the suite.s questions have", said), said
    short = [i for i in new if variants.get(i, 0) < 2]
    if short:  # those left with fewer are counted and named (the first six) in the reply
        assert f"; {len(short)} got fewer ({short[0]}: {variants.get(short[0], 0)}" in said, said
    else:
        assert "got fewer" not in said
    assert len(short) <= len(new) // 2  # most new questions got the suite's two


def test_a_persona_reply_accounts_for_every_question(pack_suites, tmp_path):
    b = _copy(pack_suites, "telecom", tmp_path)
    turns = _say(b, "add a persona: a NOC engineer who writes terse questions with abbreviations")
    said = " ".join(turns[0]["lines"])
    canon = [r["id"] for r in read_qa(b) if not r.get("variant_of")]
    voiced = {r["variant_of"] for r in read_qa(b) if r.get("persona") == "noc_engineer"}
    m = re.search(r"(\d+) variant\(s\) in its voice for (\d+) questions", said)
    assert m and int(m.group(1)) == len(voiced) and int(m.group(2)) == len(canon), said
    missing = [q for q in canon if q not in voiced]
    if missing:
        assert f"{len(missing)} of the {len(canon)} questions got no variant" in said and missing[0] in said
    else:
        assert "got no variant" not in said


def test_a_script_with_failed_requests_exits_2_and_names_them_but_quitting_normally_exits_0(pack_suites, tmp_path):
    b = _copy(pack_suites, "iot", tmp_path)
    r = CliRunner().invoke(app, ["chat", str(b), "--no-memory"], input="frobnicate the widgets\nshow the questions\n")
    assert r.exit_code == 2, r.output
    assert "1 of 2 request(s) failed: 'frobnicate the widgets'" in " ".join(r.output.split())
    ok = CliRunner().invoke(app, ["chat", str(b), "--no-memory"], input="show the questions\nquit\n")
    assert ok.exit_code == 0, ok.output
    left = CliRunner().invoke(app, ["chat", str(b), "--no-memory"], input="frobnicate the widgets\nquit\n")
    assert left.exit_code == 0, left.output  # the user left normally: a refused request is a note, not a failure
    assert "note: 1 of 1 request(s) failed: 'frobnicate the widgets'" in " ".join(left.output.split())
