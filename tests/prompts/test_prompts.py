"""Every prompt renders with sample values, shows its output schema and examples, and its examples
validate against its own models."""

import json
import re

import pytest

from prompts import PROMPTS
from prompts.judge import GradeInput, ParaphraseJudgeInput
from prompts.paraphraser import ParaphraseInput

SAMPLES = {
    "paraphraser": ParaphraseInput(canonical_question="How many sensors entered device_state 'critical'?",
                                   query_spec={"template": "state_reached"}, persona="oncall_sre: terse", k=3,
                                   today="2026-01-07"),
    "judge_paraphrase": ParaphraseJudgeInput(canonical_question="How many hosts had cpu above 80 percent?",
                                             variant="# hosts w/ cpu > 80%?", gold_sql="SELECT 1"),
    "judge_grade": GradeInput(question="What was the mean cpu?", expected=41.27, answer_type="number",
                              tolerance={"rel": 0, "abs": 0.005}, response="41.27"),
}


@pytest.mark.parametrize("name", sorted(PROMPTS))
def test_every_prompt_renders_with_sample_values(name):
    prompt = PROMPTS[name]
    messages = prompt.render(SAMPLES[name])
    assert [r for r, _ in messages] == ["system", "user"]
    system, user = messages[0][1], messages[1][1]
    assert prompt.output_model.__name__ in system and '"properties"' in system
    assert json.loads(user) == json.loads(SAMPLES[name].model_dump_json())
    assert not re.search(r"\{[a-z_]+\}", system)  # no unfilled template placeholders
    assert prompt.examples, "each prompt carries at least one worked example"
    for inp, out in prompt.examples:
        assert prompt.input_model.model_validate(inp.model_dump()) == inp
        assert prompt.output_model.model_validate(out.model_dump()) == out
        assert out.model_dump_json() in system


def test_render_validates_a_dict_input():
    prompt = PROMPTS["judge_grade"]
    msgs = prompt.render({"question": "q?", "expected": 3, "answer_type": "integer", "response": "3"})
    assert json.loads(msgs[1][1])["expected"] == 3
    with pytest.raises(ValueError):
        prompt.render({"question": "q?"})
