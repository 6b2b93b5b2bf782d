"""Every prompt renders with sample values, shows its output schema and examples, and its examples
validate against its own models."""

import importlib
import json
import pkgutil
import re

import pytest

import prompts
from prompts import PROMPTS, Prompt
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


def all_prompts() -> dict[str, Prompt]:
    """Every ``Prompt`` defined in a module of the prompts package (registered in PROMPTS or not)."""
    found = dict(PROMPTS)
    for mod in pkgutil.iter_modules(prompts.__path__):
        for value in vars(importlib.import_module(f"prompts.{mod.name}")).values():
            if isinstance(value, Prompt):
                found.setdefault(value.name, value)
    return found


def test_the_paraphraser_and_judge_prompts_are_registered():
    assert {"paraphraser", "judge_paraphrase", "judge_grade"} <= set(PROMPTS)


@pytest.mark.parametrize("name", sorted(all_prompts()))
def test_every_prompt_renders_with_sample_values(name):
    prompt = all_prompts()[name]
    assert prompt.examples, "each prompt carries at least one worked example"
    sample = SAMPLES.get(name) or prompt.examples[0][0]
    messages = prompt.render(sample)
    assert [r for r, _ in messages] == ["system", "user"]
    system, user = messages[0][1], messages[1][1]
    assert prompt.output_model.__name__ in system and '"properties"' in system
    assert json.loads(user) == json.loads(sample.model_dump_json())
    assert not re.search(r"\{[a-z_]+\}", system)  # no unfilled template placeholders
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
