"""Query-synthesizer agent: the question suite of the bundle (qa.jsonl), with the spec's plan."""

from __future__ import annotations

from langgraph.runtime import Runtime

from agents.lc_tools import synthesize_questions
from graph.context import BuildContext
from graph.state import BuildState, decision


def query_synthesizer(state: BuildState, runtime: Runtime[BuildContext]) -> dict:
    """Synthesize questions; answers come from the pandas and SQL executors, which must agree."""
    ctx = runtime.context
    prefer = failing_templates(ctx.memory)
    if ctx.model is not None:
        prefer = prefer + [t for t in _llm_focus(ctx.model, state, prefer) if t not in prefer]
    res = synthesize_questions.invoke({"out": state["out"], "n": ctx.n_questions, "seed": ctx.seed, "prefer": prefer})
    fams = ", ".join(f"{f} {n}" for f, n in res["by_family"].items())
    why = f"short of the plan: {res['shortfall']}" if res["shortfall"] else "the plan's quotas are met"
    log = [decision("query_synthesizer", "query_synthesizer", f"{res['questions']} questions ({fams})", why)]
    if prefer:
        log.append(decision("query_synthesizer", "query_synthesizer", f"templates favoured: {', '.join(prefer)}",
                            "experience notes say agents fail them"))
    if res["disagreements"]:
        log.append(decision("query_synthesizer", "query_synthesizer",
                            f"{res['disagreements']} candidate(s) dropped: executors disagreed", "listed in report.md"))
    stale = [s for s in state.get("stale", []) if s != "questions"]
    return {"questions": res["questions"], "paraphrased": False, "stale": stale, "decisions": log}


def failing_templates(memory) -> list[str]:
    """Template names that agent-failure experience notes mention, most-noted first."""
    if memory is None:
        return []
    from tools.queries.registry import load_templates

    names = sorted(load_templates())
    counts: dict[str, int] = {}
    for note in memory.notes(kind="agent_failure"):
        for name in names:
            if name in note.text:
                counts[name] = counts.get(name, 0) + note.count
    return sorted(counts, key=lambda n: (-counts[n], n))


def _llm_focus(model, state: BuildState, noted: list[str]) -> list[str]:
    """Templates the LLM says this domain's users ask most (names checked against the catalog)."""
    from agents.models import structured_call
    from prompts.spec_writer import QUERY_FOCUS, FocusInput, QueryFocus
    from tools.queries.registry import load_templates

    names = sorted(load_templates())

    def check(f: QueryFocus) -> list[str]:
        bad = [t for t in f.prefer if t not in names]
        return [f"unknown template(s) {', '.join(bad)}; choose from the list"] if bad else []

    focus = structured_call(model, QUERY_FOCUS.render(FocusInput(description=state.get("request", ""), templates=names,
                                                                 notes=noted)),
                            QueryFocus, purpose="query_synthesizer", check=check)
    return list(focus.prefer) if focus is not None else []
