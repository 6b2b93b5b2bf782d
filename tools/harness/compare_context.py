"""Accuracy per context mode in ``chronoeval compare`` (issue 19): when the runs put side by side
asked their questions with different context modes (``eval --context none|preamble|evidence|both``),
the comparison shows each run's accuracy per mode, so users see how much each agent relies on the
suite's stated conventions and the questions' evidence."""

from __future__ import annotations

from typing import Any

from tools.harness.prompting import CONTEXT_MODES, context_summary


def context_metrics(summaries: list[dict[str, Any]]) -> dict[str, list[float | None]]:
    """``{"accuracy (context none)": [per run, None where the run did not use the mode], ...}`` when
    the runs used more than one mode in all; ``{}`` otherwise (every run used the same one)."""
    used = [m for s in summaries for m in (s.get("context_modes") or [])]
    modes = [m for m in CONTEXT_MODES if m in used] + sorted(set(used) - set(CONTEXT_MODES))
    if len(modes) < 2:
        return {}
    return {f"accuracy (context {m})": [((s.get("by_context") or {}).get(m) or {}).get("accuracy") for s in summaries]
            for m in modes}


def with_context(summary: dict[str, Any], responses: list[dict[str, Any]]) -> dict[str, Any]:
    """The run summary with its ``context_modes`` and ``by_context`` (recomputed from the responses)."""
    return {**summary, **context_summary(responses)}
