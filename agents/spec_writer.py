"""Spec-writer agent: the draft (or a built-in pack) → a validated spec (YAML text in the state).

The composer in ``tools.describe`` takes distributions, state machines and measurement models from
the draft's names and the domain defaults; every default it takes is logged as a decision. A pack
is loaded as it is. Whatever comes out is validated by the spec model before it is stored.
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import ValidationError

from agents.build_ops import validate_spec, write_spec
from agents.context import BuildContext
from agents.state import BuildState, decision
from agents.structured import structured_call
from knowledge.packs import load_pack
from prompts.spec_writer import SPEC_WRITER, DomainInput, SpecAdvice
from tools.describe.advice import apply_measurement_advice
from tools.describe.llm_check import advice_problems
from tools.spec.io import dump_spec, parse_spec_text, spec_to_dict
from tools.spec.model import Spec

STALE_AFTER_SPEC = ["data", "questions", "paraphrases"]


def spec_writer(state: BuildState, runtime: Runtime[BuildContext]) -> dict:
    """Write and validate the spec; mark everything downstream stale."""
    ctx = runtime.context
    log = []
    unplaced: list[str] = []
    if state.get("pack"):
        spec_yaml = dump_spec(load_pack(state["pack"]))
        log.append(decision("spec_writer", "spec_writer", f"spec = pack '{state['pack']}' as shipped"))
    elif state.get("inferred_yaml"):
        spec_yaml = state["inferred_yaml"]
        log.append(decision("spec_writer", "spec_writer", "spec = the one fitted from the sample files / DDL"))
    else:
        res = write_spec(state["draft"], seed=ctx.seed)
        spec_yaml = res["spec_yaml"]
        log += [decision("spec_writer", "spec_writer", d, "default where the description is silent"
                         if "default" in d else "from the description and the domain catalog")
                for d in res["decisions"]]
        log += [decision("spec_writer", "spec_writer", n, "adjusted or not understood") for n in res["notes"]]
        unplaced = [*state["draft"].get("not_understood", []), *res["notes"]]
        if ctx.model is not None:
            spec_yaml, entry = _llm_advice(ctx.model, state, spec_yaml)
            log.append(entry)
    check = validate_spec(spec_yaml)
    if not check["ok"]:
        return {"error": f"the spec could not be made valid: {check['errors']}",
                "decisions": log + [decision("spec_writer", "spec_writer", "spec invalid", check["errors"])]}
    log.append(decision("spec_writer", "spec_writer", "spec validated"))
    return {"spec_yaml": spec_yaml, "review": None if not ctx.auto_approve else "approved",
            "not_understood": unplaced if not state.get("pack") and not state.get("inferred_yaml") else [],
            "bundle_ready": False, "questions": 0, "paraphrased": False, "stale": STALE_AFTER_SPEC,
            "decisions": log}


def _spec_problems(spec: dict) -> list[str]:
    """Validation errors of a spec dict, as sentences (empty when valid)."""
    try:
        Spec.model_validate(spec)
    except ValidationError as exc:
        return [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:8]]
    return []


def _llm_advice(model, state: BuildState, spec_yaml: str) -> tuple[str, dict]:
    """Measurement levels, units and bounds from the LLM, validated (errors go back to the model);
    the composed spec is kept when the advice cannot be made valid."""
    spec = spec_to_dict(parse_spec_text(spec_yaml, "spec.yaml"))
    e = spec["entities"][0]
    inp = DomainInput(description=state.get("request", ""), entity=e["name"],
                      measurements=[m["name"] for m in e.get("measurements", [])],
                      states=list(e.get("states", {}).get("states", {})))
    notes: list[str] = []

    def check(advice: SpecAdvice) -> list[str]:
        return _spec_problems(apply_measurement_advice(spec, [a.model_dump() for a in advice.measurements]))

    messages = SPEC_WRITER.render(inp)
    advice = structured_call(model, messages, SpecAdvice, purpose="spec_writer", notes=notes, check=check)
    against = advice_problems(spec, [a.model_dump() for a in advice.measurements]) if advice else {}
    if advice is not None and against:  # sent back once with what breaks the catalog
        again = structured_call(model, [*messages, ("user", "Your advice breaks the domain catalog: "
                                                    + "; ".join(against.values()) + ". Correct it.")],
                                SpecAdvice, purpose="spec_writer", notes=notes, check=check, retries=0)
        if again is not None:
            advice = again
            against = advice_problems(spec, [a.model_dump() for a in advice.measurements])
    if advice is None:
        return spec_yaml, decision("spec_writer", "spec_writer", "measurement models from the rules",
                                   "LLM advice unusable: " + ("; ".join(notes) or "no answer"))
    kept = [a for a in advice.measurements if a.name not in against]  # the rest keep the catalog's values
    new = Spec.model_validate(apply_measurement_advice(spec, [a.model_dump() for a in kept]))
    said = ", ".join(f"{a.name} ~{a.typical:g} {a.unit or ''}".strip() for a in kept) or "none"
    dropped = f"; kept the catalog's values for {'; '.join(against.values())}" if against else ""
    return dump_spec(new), decision("spec_writer", "spec_writer", f"measurement levels from the LLM: {said}",
                                    "validated against the spec model and the domain catalog" + dropped)
