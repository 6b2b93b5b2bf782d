"""The last node: write the decision log into report.md, refresh the manifest, record experience
notes in memory (when one is configured)."""

from __future__ import annotations

from pathlib import Path

from langgraph.runtime import Runtime

from agents.context import BuildContext
from agents.state import BuildState, decision
from knowledge.documents import ExperienceNote
from tools.bundle.atomic import upsert_section
from tools.bundle.files import MANIFEST, REPORT
from tools.bundle.manifest import refresh_manifest

BEGIN, END = "<!-- chronoeval:build:begin -->", "<!-- chronoeval:build:end -->"


def decision_section(state: BuildState) -> str:
    """The 'Build decisions' section of report.md: every routing and agent decision, in order."""
    lines = [BEGIN, "## Build decisions", "",
             f"Request: {state.get('request') or state.get('pack') or ''}", "",
             "| # | step | by | decision | why |", "|---|---|---|---|---|"]
    for i, d in enumerate(state.get("decisions", []), 1):
        cells = [str(d.get(k, "")).replace("|", "\\|").replace("\n", " ") for k in ("step", "agent", "decision",
                                                                                     "reason")]
        lines.append(f"| {i} | " + " | ".join(cells) + " |")
    unplaced = state.get("not_understood", [])
    if unplaced:
        lines += ["", "### Not understood", "",
                  "The description names these, but the domain catalog has no entry for them (they were modelled "
                  "with generic defaults) or they had to be adjusted; say more in chat or edit spec.yaml:", ""]
        lines += [f"- {item}" for item in unplaced]
    if state.get("error"):
        lines += ["", f"**Stopped early:** {state['error']}"]
    return "\n".join(lines) + "\n" + END + "\n"


def _notes(state: BuildState) -> list[str]:
    """Experience notes worth keeping from this build (generation lessons)."""
    out = []
    adjusted = [d["decision"] for d in state.get("decisions", [])
                if d.get("agent") == "pattern_injector" and ("strengthened" in d["decision"] or "removed" in d["decision"])]
    if adjusted:
        out.append("generation lesson: " + "; ".join(adjusted))
    edits = state.get("edits", [])
    if edits:
        out.append("user preference at review: " + "; ".join(edits))
    return out


def finish(state: BuildState, runtime: Runtime[BuildContext]) -> dict:
    """Write the report section and notes; mark the build finished."""
    ctx = runtime.context
    out = Path(state["out"])
    log = [decision("finish", "supervisor", "build finished" if not state.get("error") else "build stopped",
                    state.get("error") or f"bundle at {out}")]
    if (out / MANIFEST).is_file():
        upsert_section(out / REPORT, decision_section({**state, "decisions": state.get("decisions", []) + log}),
                       BEGIN, END)
        refresh_manifest(out, [REPORT])
    if ctx.memory is not None:
        for text in _notes(state):
            kind = "user_preference" if text.startswith("user preference") else "generation_lesson"
            try:
                ctx.memory.remember(ExperienceNote(kind=kind, text=text, source=str(out)))
            except Exception as exc:  # memory is an aid: a failing store is logged, never fatal
                log.append(decision("finish", "supervisor", "experience note not recorded", str(exc)[:200]))
    return {"finished": True, "decisions": log}
