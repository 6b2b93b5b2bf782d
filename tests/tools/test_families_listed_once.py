"""The question families are listed once (tools/common/families.py); the places users meet them
(the spec's query_plan.mix check, the qa.jsonl record's schema, the chat grammar) follow that list.
And describe's one ``singular``: the matching mode and the reader's naming mode."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tools.common.families import CORE_FAMILIES, EXTRA_FAMILIES, FAMILIES
from tools.describe.extract import singular
from tools.describe.refine import FAMILY_WORDS
from tools.queries.record import QARecord
from tools.spec import SpecError, parse_spec_text

SAMPLE = Path(__file__).parent / "spec" / "sample_iot.yaml"


def test_the_record_schema_and_the_spec_check_name_the_same_families():
    assert FAMILIES == CORE_FAMILIES + EXTRA_FAMILIES == (
        "stateless", "stateful", "incident", "shape", "detection", "forecast", "claim", "false_premise", "unanswerable")
    assert QARecord.model_json_schema()["properties"]["family"]["enum"] == list(FAMILIES)
    spec = yaml.safe_load(SAMPLE.read_text())
    spec.setdefault("query_plan", {})["mix"] = {"stateless": 0.5, "trivia": 0.5}
    with pytest.raises(SpecError, match=r"query_plan\.mix\.trivia.*unknown family; use one of "
                                        r"stateless, stateful, incident, shape, detection, forecast, claim, "
                                        r"false_premise, unanswerable"):
        parse_spec_text(yaml.safe_dump(spec), "spec.yaml")


def test_chat_knows_every_family_by_its_name():
    assert all(FAMILY_WORDS[f] == f for f in FAMILIES)
    from knowledge.packs import load_pack
    from tools.chat.reader import read_request

    spec = load_pack("iot")
    for f in FAMILIES:
        assert [(op.op, op.family) for op in read_request(f"more {f} questions", spec).ops] == [("add_questions", f)]


def test_singular_matches_words_and_keeps_the_reader_s_names():
    assert singular("batteries") == "battery" == singular("batteries", rules_only=True)
    assert singular("people") == "person" and singular("people", rules_only=True) == "people"
    assert singular("status") == "status" and singular("status", rules_only=True) == "statu"
    assert singular("kws") == "kws" and singular("kws", rules_only=True) == "kw"
