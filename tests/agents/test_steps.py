"""The build's steps are listed once (agents.steps.STEPS): the planner's order, the graph's nodes,
the supervisor prompt's step list and its Route model all come from it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agents.steps import BY_NAME, STEPS, plan
from agents.supervisor import SUPERVISOR, Route
from graph.builder import build_graph

NAMES = [s.name for s in STEPS]
APPROVED = {"draft": {}, "spec_yaml": "x", "review": "approved"}


@pytest.mark.parametrize("state, step, why", [
    ({}, "schema_inference", "no draft of the domain yet"),
    ({"pack": "iot"}, "spec_writer", "no spec yet"),
    ({"draft": {}, "spec_yaml": "x"}, "review", "the spec has not been approved"),
    (APPROVED, "pattern_injector", "no data with incidents yet"),
    ({**APPROVED, "bundle_ready": True, "stale": ["data"]}, "pattern_injector", "data is stale"),
    ({**APPROVED, "bundle_ready": True, "world_only": True}, "finish",
     "only the world was asked for (--world-only): data, incidents and checks are up to date"),
    ({**APPROVED, "bundle_ready": True}, "query_synthesizer", "no question suite yet"),
    ({**APPROVED, "bundle_ready": True, "questions": 5, "stale": ["questions"]}, "query_synthesizer",
     "questions are stale"),
    ({**APPROVED, "bundle_ready": True, "questions": 5}, "paraphraser", "the questions have no persona variants yet"),
    ({**APPROVED, "bundle_ready": True, "questions": 5, "paraphrased": True, "stale": ["paraphrases"]},
     "paraphraser", "the questions have no persona variants yet"),
    ({**APPROVED, "bundle_ready": True, "questions": 5, "paraphrased": True}, "finish",
     "data, checks, questions and paraphrases are up to date"),
])
def test_the_planner_takes_the_first_due_step(state, step, why):
    assert plan(state) == (step, why)
    assert BY_NAME[step].ready(state)


def test_an_llm_cannot_route_to_a_step_that_is_not_ready_nor_finish_early():
    assert not BY_NAME["query_synthesizer"].ready({"spec_yaml": "x"})
    assert not BY_NAME["finish"].ready({**APPROVED, "bundle_ready": True})


def test_the_prompt_route_and_graph_come_from_the_one_list():
    system = SUPERVISOR.system()
    for step in STEPS:
        assert (f"{step.name} ({step.does})" if step.does else step.name) in system
    assert Route.model_json_schema()["properties"]["next"]["enum"] == NAMES
    for name in NAMES:
        assert Route(next=name, reason="r").next == name
    with pytest.raises(ValidationError):
        Route(next="not_a_step", reason="r")
    nodes = set(build_graph().get_graph().nodes)
    assert nodes - {"__start__", "__end__"} == {"supervisor", *NAMES}
