"""Reason codes of grades: why a response is correct, incorrect, a runtime error or undecided. They
appear in responses.jsonl (``reason``), summary.json (``grading.reasons``) and the run report."""

from __future__ import annotations

REASONS: dict[str, str] = {
    # correct
    "stated_value": "the value stated matches", "marked_answer": "the marked (bold / 'Answer:') value matches",
    "table_cell": "the table cell that answers matches", "list_count": "the number of entities listed matches",
    "none_means_zero": "'none' / an empty result, and zero was expected", "stated_entity": "the entity named matches",
    "stated_label": "the label stated matches", "stated_timestamp": "the instant stated matches",
    "yes_no": "the yes/no matches", "yes_no_and_figure": "the yes/no and its figure match",
    "same_set": "the same set of entities", "none_as_expected": "nothing listed, nothing expected",
    "all_keys_match": "every key with its value, no extra key", "same_ranking": "same order and values",
    "same_rows": "the same rows", "premise_rejected": "rejects the false premise",
    "names_missing_data": "says the data cannot answer and names what is missing",
    # incorrect
    "wrong_value": "a different value", "naive_reading": "the naive (stateless) value",
    "wrong_unit": "the expected value in another unit", "wrong_count": "a different number of entities listed",
    "wrong_entity": "another entity", "wrong_label": "another label", "wrong_yes_no": "the opposite yes/no",
    "missing_figure": "the figure the question asks for is missing", "wrong_figure": "the figure is wrong",
    "not_a_yes_no": "no yes/no, something else stated", "missing_keys": "expected keys/rows missing",
    "extra_keys": "keys/rows the question does not ask for", "wrong_order": "the order differs",
    "missing_value": "labels without their values", "hedged": "hedges between several values",
    "several_listed": "several entities listed, none singled out", "no_answer": "no answer stated",
    "clarifying_question": "asks a question back instead of answering", "chart_only": "only a chart",
    "fabricated": "answers a question whose premise is false or whose data is missing",
    "unnamed_missing_data": "declines without naming the missing data",
    # runtime errors
    "adapter_error": "the agent failed (exception, timeout)", "empty": "empty response",
    "garbage": "garbage output", "refusal": "refusal",
    # undecided (to the judge)
    "several_candidates": "rival candidates, none marked", "no_candidate": "nothing the rules can read",
    "no_yes_no": "no yes/no found", "scope_mismatch": "the value matches but for another scope than asked", "caveat": "the value matches but the response says its scope is partial", "two_level_breakdown": "sub-keys under each key, no per-key value", "judge_failed": "the judge failed",
}
