"""The grader on a real generated suite: the right answer written the ways agents write it is
correct; a wrong answer (perturbed value, flipped boolean, swapped ranking) is not."""

from __future__ import annotations

from tools.grade import grade_response
from tools.harness.reference import render_answer


def perturb(v, t):
    if t in ("number", "duration"):
        return v * 1.3 + 7
    if t == "integer":
        return v + 3
    if t == "boolean":
        return {**v, "value": not v["value"]} if isinstance(v, dict) else not v
    if t == "entity":
        return "ZZZ_999"
    if t == "entity_list":
        return v[:-1] if v else ["ZZZ_1"]
    if t == "mapping":
        k = next(iter(v))
        return {**v, k: v[k] * 1.5 + 3}
    if t == "ranking":
        return [v[1], v[0], *v[2:]] if len(v) > 1 else [["ZZZ_1", 1]]
    return v


def test_right_answers_in_agent_forms_are_correct_and_wrong_ones_are_not(iot_records):
    wrong = []
    for r in iot_records:
        text = r["answer_text"]
        for form in (text, f"The answer is {text}.", f"**{text}**", f"Based on the data, {text}",
                     render_answer(r["answer"], r["answer_type"]), f"I ran the query.\n\nAnswer: {text}"):
            g = grade_response(r, form)
            if g.label != "correct":
                wrong.append((r["id"], r["template"], form, g.label, g.detail))
        bad = render_answer(perturb(r["answer"], r["answer_type"]), r["answer_type"])
        g = grade_response(r, bad)
        if g.label != "incorrect" or not g.decided:
            wrong.append((r["id"], r["template"], bad, g.label, g.detail))
    assert not wrong, "\n".join(map(str, wrong))
