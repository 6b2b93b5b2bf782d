"""Deterministic grading of agent answers (numbers with units, durations, booleans with figures,
ids and lists, mappings, rankings, tables), with an optional injected LLM judge for the cases the
rules cannot decide."""

from tools.grade.grader import Grade, Judge, Label, grade_response, response_text

__all__ = ["Grade", "Judge", "Label", "grade_response", "response_text"]
