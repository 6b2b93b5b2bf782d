"""The LLM may correct the offline reading (issue 29), over real HTTP against the scripted server: it takes away
a wrong cross-field match, and a careless reviewer can never make a right reading worse (every correction
outside the catalog's or the text's bounds is sent back once, then refused)."""

from __future__ import annotations

import json

from agents.models import get_chat_model
from agents.schema_inference import _llm_draft
from knowledge.catalog import load_catalog
from tools.describe.draft import Correction
from tools.describe.llm_check import merge_drafts
from tools.describe.reading_review import apply_review, review_items
from tools.describe.understand import understand

CAT = load_catalog()
WINERY = "Winery: 15 fermentation tanks log must temperature in °C and sugar level every hour over 3 weeks."
TOWERS = "120 cell towers reporting dropped call rate and connected users every 15 minutes over 3 days"


def test_the_llm_takes_away_a_wrong_cross_field_match(llm_env):
    offline = understand(WINERY, CAT)
    sugar = next(m for m in offline.entity.measurements if m.name == "sugar_level")
    assert sugar.catalog_id == "blood_glucose"  # the rules alone: a must's sugar read as blood glucose
    reply = offline.model_dump()
    reply["corrections"] = [{"ref": f"measurement {offline.entity.name}.sugar_level", "action": "unmatch",
                             "reason": "the sugar of grape must, not blood glucose"}]
    llm_env.script(reply)
    llm = _llm_draft(get_chat_model(), WINERY, offline, [])
    reading = json.loads(llm_env.requests[0]["messages"][1]["content"])["reading"]
    assert any("sugar level" in line and "blood_glucose" in line for line in reading)  # the reviewer saw the match
    merged, _ = merge_drafts(offline, llm, CAT)
    fixed, taken, refused = apply_review(merged, llm.corrections, CAT)
    assert next(m for m in fixed.entity.measurements if m.name == "sugar_level").catalog_id is None
    assert taken and not refused and "LLM review" in fixed.evidence[f"review measurement {offline.entity.name}.sugar_level"]


def test_a_careless_reviewer_never_makes_a_right_reading_worse(llm_env):
    offline = understand(TOWERS, CAT)
    name = offline.entity.name
    careless = offline.model_dump()
    careless["corrections"] = [
        {"ref": f"entity {name}", "action": "drop"},  # the main entity
        {"ref": f"measurement {name}.connected_users", "action": "rematch", "catalog_id": "made_up_id"},
        {"ref": f"measurement {name}.dropped_call_rate", "action": "rename", "name": "radio_kpi_blob"},
        {"ref": "measurement nowhere.x", "action": "unmatch"}]
    llm_env.script(careless, careless)
    assert _llm_draft(get_chat_model(), TOWERS, offline, []) is None  # sent back once, still wrong: the rules stand
    resent = json.dumps(llm_env.requests[1]["messages"])
    assert "made_up_id" in resent and "cannot be dropped" in resent and "words the description says" in resent
    corrections = [Correction.model_validate(c) for c in careless["corrections"]]
    fixed, taken, refused = apply_review(offline, corrections, CAT)
    assert not taken and len(refused) == 4
    assert fixed.model_dump() == offline.model_dump()


def test_a_rematch_must_fit_the_unit_the_text_states():
    offline = understand("20 bakery ovens report oven temperature in °C every minute for a week", CAT)
    oven = offline.entity
    temp = next(m for m in oven.measurements if "temp" in m.name)
    kw = next(m.id for m in CAT.measurements if m.unit == "kilowatt")
    fixed, taken, refused = apply_review(offline, [Correction(ref=f"measurement {oven.name}.{temp.name}",
                                                              action="rematch", catalog_id=kw)], CAT)
    assert refused and "°C" in refused[0] and not taken


def test_the_reading_lists_every_item_with_its_words_and_match():
    items = review_items(understand(TOWERS, CAT), CAT)
    lines = [i.line() for i in items]
    assert any(line.startswith("entity ") and "cell_site" in line for line in lines)
    assert any("'dropped call rate'" in line and "call_drop_rate" in line for line in lines)
