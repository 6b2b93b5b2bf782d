"""The judge: paraphrase fidelity (slot check offline; slot check and LLM verdict with an LLM) and
answer grading against hand labels, driven over HTTP by the scripted server."""

from __future__ import annotations

import json
import re

import pytest

from agents.judge import JudgeGrade, grade_response, judge_paraphrase
from tests.llm_server import last_user_message

CANONICAL = ("How many readings with battery below 43 percent were recorded for sensors whose zone is "
             "'cold_storage' and device_state 'warning', from 04:00 UTC on 5 January 2026 (included) up to "
             "10:00 UTC on 5 January 2026 (excluded)? Count every matching reading.")
VALID = [
    "Count every matching reading. Could you tell me how many readings with battery below 43 percent were logged "
    "for sensors whose zone is 'cold_storage' and device_state 'warning', between 5 January 2026 at 04:00 UTC and "
    "5 January 2026 at 10:00 UTC (start included, end excluded)?",
    "From 2026-01-05 04:00 UTC up to but not including 2026-01-05 10:00 UTC, how many samples w/ battery below 43 % "
    "were recorded for sensors whose zone is 'cold_storage' & device_state 'warning'? count every "
    "matching sample",
    "Today is 7 January 2026. How many readings with battery below 43 percent were recorded for sensors whose zone "
    "is 'cold_storage' and device_state 'warning' from the day before yesterday at 4 AM UTC (included) up to the "
    "day before yesterday at 10 AM UTC (excluded)? Count each matching reading.",
]
DRIFTED = {
    "threshold": (CANONICAL.replace("below 43", "below 45"), "numbers differ"),
    "direction": (CANONICAL.replace("below 43", "above 43"), "comparators differ"),
    "state": (CANONICAL.replace("'warning'", "'critical'"), "value 'warning' is missing"),
    "attribute value": (CANONICAL.replace("'cold_storage'", "'warehouse'"), "value 'cold storage' is missing"),
    "window end": (CANONICAL.replace("10:00 UTC", "11:00 UTC"), "times differ"),
    "window day": (CANONICAL.replace("10:00 UTC on 5 January", "10:00 UTC on 6 January"), "dates differ"),
    "bound convention": (CANONICAL.replace(" (included)", "").replace(" (excluded)", "").replace("from 04", "between 04")
                         .replace("up to", "and"), "excluded end"),
    "relative date without today": (CANONICAL.replace("5 January 2026 (excluded)", "yesterday (excluded)"),
                                    "without a stated 'today'"),
}


@pytest.mark.parametrize("variant", VALID)
def test_valid_paraphrases_are_accepted_offline(variant):
    v = judge_paraphrase(CANONICAL, variant, model=False)
    assert v["equivalent"], v["reason"]


@pytest.mark.parametrize("kind", sorted(DRIFTED))
def test_drifted_paraphrases_are_rejected_with_the_reason(kind):
    text, why = DRIFTED[kind]
    v = judge_paraphrase(CANONICAL, text, model=False)
    assert not v["equivalent"] and why in v["reason"], v


def test_rankings_and_negations_are_slots_too():
    q = "Which 3 hosts had the highest peak cpu (percent) and did not restart, over the whole data set?"
    assert not judge_paraphrase(q, q.replace("highest", "lowest"), model=False)["equivalent"]
    assert not judge_paraphrase(q, q.replace("did not restart", "restarted"), model=False)["equivalent"]
    assert not judge_paraphrase(q, q.replace("Which 3", "Which 5"), model=False)["equivalent"]
    assert judge_paraphrase(q, "Over the whole data set, which 3 hosts that did not restart had the top peak cpu "
                               "(in %)?", model=False)["equivalent"]


def test_with_an_llm_both_the_slot_check_and_the_llm_must_pass(llm_env):
    llm_env.script({"equivalent": False, "reason": "the variant counts sensors instead of readings"},
                   {"equivalent": True, "reason": "same query"})
    no = judge_paraphrase(CANONICAL, VALID[0])
    assert not no["equivalent"] and "sensors instead of readings" in no["reason"]
    yes = judge_paraphrase(CANONICAL, VALID[1])
    assert yes["equivalent"] and "slot check and LLM judge agree" in yes["reason"]
    sent = json.loads(last_user_message(llm_env.requests[1]))
    assert sent["canonical_question"] == CANONICAL and sent["variant"] == VALID[1]
    calls = llm_env.calls
    drift = judge_paraphrase(CANONICAL, DRIFTED["threshold"][0])  # rejected by the slot check: no LLM call
    assert not drift["equivalent"] and llm_env.calls == calls


# --------------------------------------------------------------------------- grading vs hand labels

def _case(t, expected, response, label, tol=(0.0, 0.0), question="What is it?"):
    return {"answer_type": t, "expected": expected, "response": response, "label": label,
            "tolerance": {"rel": tol[0], "abs": tol[1]}, "question": question}


MEAN_Q = "What was the mean latency (ms) of link L1 on 2 January 2026? Round to 2 decimal places."
HAND_LABELLED = [
    _case("number", 19.6912, "19.69 ms", "correct", (0, 0.005), MEAN_Q),
    _case("number", 19.6912, "The mean latency was **19.69 ms**.", "correct", (0, 0.005), MEAN_Q),
    _case("number", 19.6912, "about 19.7 ms", "incorrect", (0, 0.005), MEAN_Q),
    _case("number", 19.6912, "25.10", "incorrect", (0, 0.005), MEAN_Q),
    _case("number", 19.6912, "Answer: 19.69", "correct", (0, 0.005), MEAN_Q),
    _case("number", 19.6912, "I could not compute it.", "incorrect", (0, 0.005), MEAN_Q),
    _case("number", 81.1111, "81.1%", "correct", (0, 0.05)),
    _case("number", 81.1111, "81.3 percent", "incorrect", (0, 0.05)),
    _case("number", 0.5, "0.5", "correct", (0, 0.005)),
    _case("number", -3.25, "It fell by 3.25, so -3.25.", "correct", (0, 0.005)),
    _case("number", -3.25, "3.25", "incorrect", (0, 0.005)),
    _case("number", 1200.0, "1,200", "correct", (0.001, 0)),
    _case("number", 1200.0, "1,230", "incorrect", (0.001, 0)),
    _case("integer", 63, "63 sessions", "correct"),
    _case("integer", 63, "There were 63 such sessions.", "correct"),
    _case("integer", 63, "64", "incorrect"),
    _case("integer", 63, "118 sessions", "incorrect"),
    _case("integer", 0, "0", "correct"),
    _case("integer", 12345, "12,345 readings", "correct"),
    _case("integer", 12345, "12,346", "incorrect"),
    _case("integer", 7, "Seven hosts: the count is 7", "correct"),
    _case("integer", 7, "between 6 and 8", "incorrect"),
    _case("duration", 7800.0, "7800 seconds", "correct", (0, 1)),
    _case("duration", 7800.0, "2 hours 10 minutes, i.e. 7800 s", "correct", (0, 1)),
    _case("duration", 7800.0, "7200 s", "incorrect", (0, 1)),
    _case("duration", 90.0, "90", "correct", (0, 1)),
    _case("duration", 90.0, "95", "incorrect", (0, 1)),
    _case("boolean", True, "Yes.", "correct"),
    _case("boolean", True, "yes, SENSOR_004 flatlined", "correct"),
    _case("boolean", True, "No, nothing unusual.", "incorrect"),
    _case("boolean", False, "No.", "correct"),
    _case("boolean", False, "Yes, one cell exceeded it.", "incorrect"),
    _case("boolean", False, "no", "correct"),
    _case("entity", "SENSOR_0065", "SENSOR_0065", "correct"),
    _case("entity", "SENSOR_0065", "It was sensor SENSOR_0065.", "correct"),
    _case("entity", "SENSOR_0065", "SENSOR_0066", "incorrect"),
    _case("entity", "host-07", "host-07 had the biggest rise", "correct"),
    _case("entity", "host-07", "host-17", "incorrect"),
    _case("label", "checkout", "checkout", "correct"),
    _case("label", "checkout", "the cart page", "incorrect"),
    _case("entity_list", ["CELL_62", "CELL_67"], "CELL_62, CELL_67", "correct"),
    _case("entity_list", ["CELL_62", "CELL_67"], "CELL_62 only", "incorrect"),
    _case("entity_list", ["CELL_62", "CELL_67"], "CELL_67 and CELL_62", "correct"),
    _case("entity_list", ["CELL_62", "CELL_67"], "CELL_62, CELL_67, CELL_7", "incorrect"),
]


def reference_llm(body):
    """A scripted 'model' that grades from exactly what the judge sent: the expected answer, its type
    and tolerance, and the response (the last number, yes/no, or ids in it). If the judge's request
    lost or garbled any of those, its verdicts stop matching the hand labels."""
    sent = json.loads(last_user_message(body))
    exp, t, resp = sent["expected"], sent["answer_type"], sent["response"]
    tol = sent.get("tolerance") or {"rel": 0, "abs": 0}
    text = resp.lower()
    if t in ("number", "integer", "duration"):
        if re.search(r"\bbetween\b|\babout\b|could not", text):
            return {"verdict": "incorrect", "reason": "hedged or approximate"}
        nums = [float(x.replace(",", "")) for x in re.findall(r"-?\d[\d,]*(?:\.\d+)?", resp)]
        if not nums:
            return {"verdict": "incorrect", "reason": "no number"}
        ok = abs(nums[-1] - exp) <= max(tol["abs"], tol["rel"] * abs(exp)) + 1e-9
    elif t == "boolean":
        ok = text.startswith("yes") == bool(exp) and (text.startswith("yes") or text.startswith("no"))
    elif t == "entity_list":
        ids = set(re.findall(r"[A-Z]+_\d+", resp))
        ok = ids == set(exp)
    else:
        ok = re.search(rf"(?<![\w-]){re.escape(str(exp).lower())}(?![\w-])", text) is not None
    return {"verdict": "correct" if ok else "incorrect", "reason": f"compared {resp!r} with {exp!r}"}


def test_grading_agrees_with_hand_labels_over_http(llm_env):
    assert len(HAND_LABELLED) >= 40
    llm_env.respond_with(reference_llm)
    llm_env.malformed_json(times=3)  # the first case's LLM output is broken: the rules decide it
    notes: list[str] = []
    agree = []
    for c in HAND_LABELLED:
        g = grade_response(c["question"], c["expected"], c["answer_type"], c["tolerance"], c["response"], notes=notes)
        assert isinstance(g, JudgeGrade) and g.reason
        agree.append(g.verdict == c["label"])
    assert llm_env.calls == len(HAND_LABELLED) - 1 + 3
    assert sum(agree) == len(HAND_LABELLED), [c["response"] for c, a in zip(HAND_LABELLED, agree, strict=True) if not a]
    assert any("invalid output" in n for n in notes)
    sent = json.loads(last_user_message(llm_env.requests[-1]))
    assert sent["expected"] == HAND_LABELLED[-1]["expected"] and sent["tolerance"] == {"rel": 0.0, "abs": 0.0}


def test_grading_offline_uses_the_rules(monkeypatch):
    g = grade_response(MEAN_Q, 19.6912, "number", {"rel": 0, "abs": 0.005}, "19.69 ms")
    assert g.verdict == "correct" and g.reason.startswith("rules:")
    assert grade_response(MEAN_Q, 19.6912, "number", {"rel": 0, "abs": 0.005}, "25.1 ms").verdict == "incorrect"


def test_grading_with_an_unreachable_llm_falls_back_to_the_rules(monkeypatch):
    monkeypatch.setenv("CHRONOEVAL_MODEL", "openai:scripted")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("CHRONOEVAL_LLM_RETRIES", "0")
    notes: list[str] = []
    g = grade_response("How many?", 63, "integer", None, "63", notes=notes)
    assert g.verdict == "correct" and "LLM judge unavailable" in g.reason and "cannot reach" in notes[0]
