"""The LLM path of description understanding, over real HTTP against the scripted OpenAI-compatible
server: the retrieved catalog entries are in the prompt, a draft that breaks the catalog is sent back
once, the LLM resolves what the rules could not place, and it never does worse than offline."""

from __future__ import annotations

import json

import pytest

from agents.models import get_chat_model
from agents.schema_inference import _llm_draft
from agents.spec_writer import _llm_advice
from knowledge.catalog import load_catalog
from tools.describe.compose_world import compose_world
from tools.describe.llm_check import merge_drafts
from tools.describe.understand import understand
from tools.spec.io import dump_spec, parse_spec_text

CAT = load_catalog()
BEES = "40 beehives reporting hive weight in kg and inside temperature every hour over 2 weeks"


def _kg_archetype() -> str:
    return next(m.id for m in CAT.measurements if m.unit in ("kilogram", "kg"))


def _user(request: dict) -> dict:
    return json.loads(request["messages"][1]["content"])


def test_a_draft_breaking_the_catalog_is_sent_back_once_then_merged(llm_env):
    offline = understand(BEES, CAT)
    assert offline.entity.measurements[0].catalog_id is None  # "hive weight" is not in the catalog
    bad = offline.model_dump()
    bad["entity"]["measurements"] = [{"name": "hive_weight", "words": "hive weight", "catalog_id": "bogus_weight"}]
    good = offline.model_dump()
    good["entity"]["measurements"][0]["catalog_id"] = _kg_archetype()
    llm_env.script(bad, good)
    notes: list[str] = []
    draft = _llm_draft(get_chat_model(), BEES, offline, notes)
    assert len(llm_env.requests) == 2  # sent back once
    first = _user(llm_env.requests[0])
    assert any("measurement" in line for line in first["catalog"])  # the retrieved entries are in the prompt
    assert any("hive weight" in x for x in first["not_understood"])
    resent = json.dumps(llm_env.requests[1]["messages"])
    assert "bogus_weight" in resent and "inside temperature" in resent  # the problems went back to the model
    merged, taken = merge_drafts(offline, draft, CAT)
    assert merged.entity.measurements[0].catalog_id == _kg_archetype() and taken
    assert not any("hive weight" in x for x in merged.not_understood)


@pytest.mark.parametrize("slug", ["wind_turbines", "ride_hailing_trips", "icu_bedside_monitors", "smart_meters"])
def test_the_llm_path_never_does_worse_than_offline(llm_env, slug):
    from tests.graph.corpus_report import CORPUS_DIR

    text = (CORPUS_DIR / f"{slug}.yaml").read_text()
    import yaml

    text = yaml.safe_load(text)["description"]
    offline = understand(text, CAT)
    careless = offline.model_dump()  # a model that drops half of what the text names and invents ids
    for e in [careless["entity"], *careless["others"]]:
        e["measurements"] = [dict(m, catalog_id="made_up") for m in e["measurements"][::2]]
        e["states"] = []
    llm_env.script(careless, careless)
    draft = _llm_draft(get_chat_model(), text, offline, [])
    assert draft is None  # still broken after being sent back once: the offline reading stands
    merged, _ = merge_drafts(offline, type(offline).model_validate(careless), CAT)
    for e, m_e in zip(offline.entities, merged.entities, strict=True):  # even merged, nothing is lost
        assert [(m.name, m.catalog_id) for m in e.measurements] == [(m.name, m.catalog_id) for m in m_e.measurements]
        assert e.states == m_e.states and [a.name for a in e.attributes] == [a.name for a in m_e.attributes]


def test_measurement_advice_outside_the_catalog_keeps_the_catalog_values(llm_env):
    text = "24 bedside monitors reporting SpO2 and heart rate every minute over 2 days"
    spec, _, _ = compose_world(understand(text, CAT), CAT)
    wrong = {"measurements": [{"name": "spo2", "unit": "%", "typical": 120, "low": 0, "high": 155},
                              {"name": "heart_rate", "unit": "bpm", "typical": 75, "low": 20, "high": 250,
                               "integer": True}]}
    llm_env.script(wrong, wrong)
    new_yaml, entry = _llm_advice(get_chat_model(), {"request": text}, dump_spec(spec))
    assert len(llm_env.requests) == 2 and "breaks the domain catalog" in json.dumps(llm_env.requests[1])
    new = parse_spec_text(new_yaml, "spec.yaml")
    spo2 = next(m for e in new.entities for m in e.measurements if m.name == "spo2")
    hr = next(m for e in new.entities for m in e.measurements if m.name == "heart_rate")
    assert spo2.base <= 100 and spo2.bounds[1] <= 100  # SpO2 never above 100 %
    assert hr.base == 75  # the valid advice is taken
    assert "kept the catalog's values for spo2" in entry["reason"]
