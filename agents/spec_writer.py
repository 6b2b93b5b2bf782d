"""Spec-writer agent: the draft (or a built-in pack) → a validated spec (YAML text in the state).

The composer in ``tools.describe`` takes distributions, state machines and measurement models from
the draft's names and the domain defaults; every default it takes is logged as a decision. A pack
is loaded as it is. Whatever comes out is validated by the spec model before it is stored.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from agents.lc_tools import validate_spec, write_spec
from graph.context import BuildContext
from graph.state import BuildState, decision

STALE_AFTER_SPEC = ["data", "questions", "paraphrases"]


def spec_writer(state: BuildState, runtime: Runtime[BuildContext]) -> dict:
    """Write and validate the spec; mark everything downstream stale."""
    ctx = runtime.context
    log = []
    if state.get("pack"):
        from tools.spec import dump_spec, load_pack

        spec_yaml = dump_spec(load_pack(state["pack"]))
        log.append(decision("spec_writer", "spec_writer", f"spec = pack '{state['pack']}' as shipped"))
    elif state.get("inferred_yaml"):
        spec_yaml = state["inferred_yaml"]
        log.append(decision("spec_writer", "spec_writer", "spec = the one fitted from the sample files / DDL"))
    else:
        res = write_spec.invoke({"draft": state["draft"], "seed": ctx.seed})
        spec_yaml = res["spec_yaml"]
        log += [decision("spec_writer", "spec_writer", d, "default where the description is silent")
                for d in res["decisions"]]
    check = validate_spec.invoke({"spec_yaml": spec_yaml})
    if not check["ok"]:
        return {"error": f"the spec could not be made valid: {check['errors']}",
                "decisions": log + [decision("spec_writer", "spec_writer", "spec invalid", check["errors"])]}
    log.append(decision("spec_writer", "spec_writer", "spec validated"))
    return {"spec_yaml": spec_yaml, "review": None if not ctx.auto_approve else "approved",
            "bundle_ready": False, "questions": 0, "paraphrased": False, "stale": STALE_AFTER_SPEC,
            "decisions": log}
