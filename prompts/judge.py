"""Prompts of the judge agent: paraphrase fidelity and answer grading."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from prompts.base import Prompt


class ParaphraseJudgeInput(BaseModel):
    """A variant to compare with the canonical question it was derived from."""

    canonical_question: str
    variant: str
    query_spec: dict[str, Any] = {}
    gold_sql: str = ""


class ParaphraseVerdict(BaseModel):
    """Whether the variant asks exactly the same query."""

    equivalent: bool
    reason: str = Field(description="one sentence; name what changed when not equivalent")


class GradeInput(BaseModel):
    """An agent's free-text response to grade against the expected answer."""

    question: str
    expected: Any
    answer_type: str
    tolerance: dict[str, float] | None = None
    response: str
    undecided_reason: str = Field("", description="why the deterministic rules could not decide (rival candidates, ...)")


class JudgeGrade(BaseModel):
    """The judge's grade of one response."""

    verdict: Literal["correct", "incorrect"]
    reason: str


PARAPHRASE_JUDGE = Prompt(
    name="judge_paraphrase",
    instruction="""You check that a reworded question asks exactly the same query as the canonical
question (given with its structured query and gold SQL). It is equivalent only if every number,
threshold and comparison direction, quoted value (state, attribute value, entity id), column,
duration, ranking direction and time window (both bounds and which are included) is the same, and no
condition was added or dropped. Wording, order, typos, abbreviations and tone do not matter.""",
    input_model=ParaphraseJudgeInput,
    output_model=ParaphraseVerdict,
    examples=[
        (ParaphraseJudgeInput(canonical_question="How many sensors had battery below 43 percent from 04:00 UTC on "
                                                 "5 January 2026 (included) up to 10:00 UTC on 5 January 2026 (excluded)?",
                              variant="how many sensors had battery under 40% btw 04:00 and 10:00 UTC on 5 Jan 2026?"),
         ParaphraseVerdict(equivalent=False, reason="the threshold changed from 43 to 40 and the bound convention is gone")),
        (ParaphraseJudgeInput(canonical_question="Which 3 hosts had the highest peak cpu (percent) over the whole data set?",
                              variant="top 3 hosts by peak cpu %, whole data set?"),
         ParaphraseVerdict(equivalent=True, reason="same k, key, aggregate, direction and scope")),
    ],
)

GRADER = Prompt(
    name="judge_grade",
    instruction="""You grade an agent's answer to a question about a dataset. The expected answer is
exact (JSON, with its type and numeric tolerance {rel, abs}). The response is correct when its final
answer matches the expected answer within tolerance (units may differ if the value converts; extra
explanation is fine); it is incorrect when the final answer differs, is missing, hedges between
several values, or answers a different question. Judge only the final answer, not the method.
When given, undecided_reason says why the deterministic rules could not decide (e.g. rival values).""",
    input_model=GradeInput,
    output_model=JudgeGrade,
    examples=[
        (GradeInput(question="What was the mean cpu (percent)? Round to 2 decimal places.", expected=41.27,
                    answer_type="number", tolerance={"rel": 0.0, "abs": 0.005}, response="About 41.3%."),
         JudgeGrade(verdict="incorrect", reason="41.3 is outside the tolerance of 41.27 ± 0.005")),
        (GradeInput(question="Did any sensor flatline?", expected=True, answer_type="boolean",
                    response="Yes: SENSOR_004 reported a constant value."),
         JudgeGrade(verdict="correct", reason="the answer is yes, as expected")),
    ],
)
