"""Chat with an LLM (issue 30), over real HTTP to a scripted server: the model returns the same typed
Reading the offline reader gives; a reading that names something the bundle does not have is sent back
with the problem, and one that stays wrong is replaced by the offline reading; either way a change is
previewed and applied only on "ok"."""

from __future__ import annotations

import shutil

from graph.chat import ChatContext
from tests.graph.test_chat import _say_with
from tools.spec.io import load_spec


def test_the_llm_reading_is_checked_against_the_bundle_then_previewed_and_applied_on_ok(
        walkthrough_bundle, tmp_path, llm_env):
    from agents.models import get_chat_model

    b = tmp_path / "towers"
    shutil.copytree(walkthrough_bundle, b)
    llm_env.script({"ops": [{"op": "remove_incident", "incident": "the_outage"}]},
                   {"ops": [{"op": "remove_incident", "incident": "cell_tower_outage"}]})
    turns = _say_with(b, ChatContext(model=get_chat_model()), "please get rid of the tower outage", "ok")
    assert turns[0]["op"] == "preview" and any("removed data outage 'cell_tower_outage'" in x
                                               for x in turns[0]["lines"]), turns[0]
    assert "'the_outage' does not exist" in str(llm_env.requests[1]["messages"])
    assert turns[1]["lines"][0] == "removed data outage 'cell_tower_outage'", turns[1]
    assert [i.id for i in load_spec(b / "spec.yaml").incidents] == ["throughput_flatline"]
    readings = [r for r in llm_env.requests if r["messages"][0]["content"].startswith("You read one request")]
    assert len(readings) == 2  # "ok" needs no model (the other requests paraphrase the new questions)


def test_a_reading_that_stays_wrong_falls_back_to_the_offline_reader(walkthrough_bundle, tmp_path, llm_env):
    from agents.models import get_chat_model

    b = tmp_path / "towers"
    shutil.copytree(walkthrough_bundle, b)
    wrong = {"ops": [{"op": "scale_entities", "entity": "router", "count": 5}]}
    llm_env.script(wrong, wrong, wrong)
    turns = _say_with(b, ChatContext(model=get_chat_model()), "show me the incidents")
    assert turns[0]["op"] == "show" and turns[0]["lines"][0] == "2 incident(s)", turns[0]
