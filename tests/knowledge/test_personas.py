"""The persona library is knowledge's file: a persona added to it is loaded, offered first for its
domain, voices questions and becomes a retrieval document (the "adding a persona" recipe)."""

from __future__ import annotations

import pytest
import yaml

from knowledge.builtin import library_persona_docs
from knowledge.personas import PERSONAS_FILE, load_personas
from tools.paraphrase import paraphrase
from tools.paraphrase.personas import personas_for

NEW = {"name": "cold_chain_auditor", "description": "Auditor of cold-chain compliance for a food distributor.",
       "goals": ["prove the storage stayed in range"], "domains": ["iot"], "style": "perfect_grammar",
       "dialect": "uk", "formality": "high", "verbosity": "high",
       "habits": {"iso_dates": True, "fronts_window": True}, "vocabulary": {"readings": "measurements"}}
Q = ("What was the mean temperature (°C) over all readings from sensors whose zone is 'cold_storage', from 05:00 UTC "
     "on 3 January 2026 (included) up to 17:00 UTC on 3 January 2026 (excluded)? Round to 2 decimal places.")


@pytest.fixture
def library(tmp_path):
    data = yaml.safe_load(PERSONAS_FILE.read_text(encoding="utf-8"))
    data["personas"].append(NEW)
    path = tmp_path / "personas.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_a_persona_added_to_the_library_is_loaded_and_offered_first_for_its_domain(library):
    personas = load_personas(library)
    assert list(personas)[:-1] == list(load_personas()) and "cold_chain_auditor" in personas
    iot = [p.name for p in personas_for("iot", personas)]
    first_general = next(i for i, name in enumerate(iot) if not personas[name].domains)
    assert iot.index("cold_chain_auditor") < first_general  # typical of iot: before the general ones
    assert [p.name for p in personas_for("telecom", personas)][-1] == "cold_chain_auditor"


def test_the_new_persona_voices_a_question_and_is_a_retrieval_document(library):
    auditor = load_personas(library)["cold_chain_auditor"]
    got = paraphrase(Q, [auditor], 1, key="q0001").variants
    assert len(got) == 1 and got[0].persona == "cold_chain_auditor" and got[0].text != Q
    docs = {d.id: d for d in library_persona_docs(library)}
    assert "Auditor of cold-chain" in docs["persona:cold_chain_auditor"].text
