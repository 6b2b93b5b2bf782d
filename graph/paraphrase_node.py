"""The build graph's paraphraser step: persona variants of every canonical question (judged: same
slots, same query), appended to qa.jsonl with a Paraphrases section in report.md."""

from __future__ import annotations

import json
from pathlib import Path

from langgraph.runtime import Runtime

from graph.context import BuildContext
from graph.state import BuildState, decision
from tools.bundle.files import MANIFEST

VARIANTS_PER_QUESTION = 2


def paraphraser(state: BuildState, runtime: Runtime[BuildContext]) -> dict:
    """Paraphrase the suite in the voices of the domain's typical personas."""
    from agents.paraphraser import paraphrase_bundle
    from tools.paraphrase.personas import load_personas, personas_for

    ctx = runtime.context
    bundle = Path(state["out"])
    domain = json.loads((bundle / MANIFEST).read_text()).get("spec")
    chosen = personas_for(domain if isinstance(domain, str) else None, load_personas())[:4]
    rep = paraphrase_bundle(bundle, chosen, VARIANTS_PER_QUESTION, model=ctx.model, seed=ctx.seed)
    log = [decision("paraphraser", "paraphraser", f"{len(rep.added)} variant(s) from {', '.join(p.name for p in chosen)}",
                    f"{len(rep.rejected)} rejected by the judge; {rep.model}")]
    log += [decision("paraphraser", "judge", n) for n in rep.notes[:5]]
    stale = [s for s in state.get("stale", []) if s != "paraphrases"]
    return {"paraphrased": True, "stale": stale, "decisions": log}
