"""What an agent-under-test reads for one question, by context mode (``chronoeval eval --context``).

- ``none``: the question alone;
- ``preamble``: the suite's conventions (suite.json) and the question;
- ``evidence``: the question's evidence (its derived terms) and the question;
- ``both`` (default): preamble, evidence and question.

The question always comes last, after ``Question: `` when anything precedes it, so a reader (the
reference agents, a human) finds it with ``question_of``. Answers are never part of the text.
Running several modes in one run shows how much an agent relies on the stated definitions
(``summary.json`` ``by_context``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

CONTEXT_MODES = ("none", "preamble", "evidence", "both")
DEFAULT_CONTEXT = "both"
QUESTION_MARK = "Question: "
LEGACY_CONTEXT = "none"  # rows of runs recorded before context modes existed: the bare question


def check_modes(modes: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """The modes to run, in the order given, duplicates dropped; ValueError naming a bad one."""
    out = tuple(dict.fromkeys(modes or (DEFAULT_CONTEXT,)))
    for m in out:
        if m not in CONTEXT_MODES:
            raise ValueError(f"--context {m!r} is not one of {', '.join(CONTEXT_MODES)}")
    return out


def asked_text(record: dict[str, Any], mode: str, preamble: str) -> str:
    """The text sent to the agent for ``record`` under ``mode``."""
    parts = []
    if mode in ("preamble", "both") and preamble:
        parts.append(preamble.strip())
    if mode in ("evidence", "both") and record.get("evidence"):
        parts.append("Evidence: " + record["evidence"].strip())
    if not parts:
        return record["question"]
    return "\n\n".join([*parts, QUESTION_MARK + record["question"]])


def question_of(text: str) -> str:
    """The question inside an asked text (the text itself when nothing precedes it)."""
    i = text.rfind("\n" + QUESTION_MARK)
    return text[i + 1 + len(QUESTION_MARK):] if i >= 0 else text


def context_of(row: dict[str, Any]) -> str:
    return row.get("context") or LEGACY_CONTEXT


def context_summary(responses: list[dict[str, Any]], modes: list[str] | None = None) -> dict[str, Any]:
    """``context_modes`` (the modes run) and ``by_context`` ({mode: {accuracy, n}}) for summary.json."""
    rows: dict[str, list[dict]] = defaultdict(list)
    for r in responses:
        rows[context_of(r)].append(r)
    order = [m for m in (modes or CONTEXT_MODES) if m in rows] + sorted(set(rows) - set(modes or CONTEXT_MODES))
    by = {m: {"accuracy": sum(x["label"] == "correct" for x in rows[m]) / len(rows[m]), "n": len(rows[m])}
          for m in order}
    return {"context_modes": order, "by_context": by}


def context_section(summary: dict[str, Any]) -> str:
    """The run report's markdown section on context modes (a table when more than one was run)."""
    modes = summary.get("context_modes") or []
    if not modes:
        return ""
    if len(modes) == 1:
        return f"\n## Context\n\nEvery question was asked with context mode `{modes[0]}`.\n"
    lines = ["", "## Accuracy by context mode", "",
             "How much the agent relies on the suite's stated conventions (preamble) and each question's "
             "definitions (evidence).", "", "| context | accuracy | answers |", "|---|---|---|"]
    for m in modes:
        g = summary["by_context"][m]
        lines.append(f"| {m} | {g['accuracy']:.1%} | {g['n']} |")
    return "\n".join(lines) + "\n"
