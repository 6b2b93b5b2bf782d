"""Pattern-injector agent: generate the world with the spec's incidents, check that every incident
is really in the data, and re-place or strengthen the ones whose check fails (bounded retries).

An incident still failing after the retries is removed from the spec (a suite must never ask about
an incident the data does not show) and the decision log says so.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from agents.build_ops import generate_checked_bundle
from agents.context import BuildContext
from agents.spec_writer import _spec_problems
from agents.state import BuildState, decision
from agents.structured import structured_call
from prompts.spec_writer import PATTERN_INJECTOR, DomainInput, IncidentPlan
from tools.describe.adjust import adjust_incident
from tools.describe.advice import apply_incident_plan
from tools.spec.io import dump_spec, parse_spec_text, spec_to_dict
from tools.spec.model import Spec


def _retry(spec_yaml: str, failed: list[dict], horizon_days: int) -> tuple[str, list[str]]:
    """The spec with failing incidents adjusted (or removed when nothing can be adjusted)."""
    spec = spec_to_dict(parse_spec_text(spec_yaml, "spec.yaml"))
    by_incident: dict[str, list[str]] = {}
    for f in failed:
        if f["incident"]:
            by_incident.setdefault(f["incident"], []).append(f["name"])
    changes, dropped = [], []
    for inc, names in by_incident.items():
        if inc in stated_incidents(spec):  # the user's own incident: never made bigger or moved (issue 29)
            what = None
            dropped.append(f"the incident you described ('{_description(spec, inc)}') does not show in the data as "
                           f"stated ({', '.join(names)} check failed); it was left out rather than changed")
        else:
            what = adjust_incident(spec, inc, names, horizon_days)
        if what is None:
            spec["incidents"] = [i for i in spec.get("incidents", []) if i.get("id") != inc]
            what = f"{inc}: {', '.join(names)} failed and cannot be adjusted; removed"
        changes.append(what)
    return dump_spec(Spec.model_validate(spec)), changes, dropped


def stated_incidents(spec: dict) -> set[str]:
    """Ids of the incidents the user's description states in its own words (their description is a sentence
    of it): these come out as described or not at all."""
    text = " ".join(str(spec.get("description") or "").split())
    return {i["id"] for i in spec.get("incidents", []) if len(str(i.get("description") or "")) > 12
            and " ".join(str(i["description"]).split()) in text}


def _description(spec: dict, inc: str) -> str:
    return next((str(i.get("description") or inc) for i in spec.get("incidents", []) if i.get("id") == inc), inc)


def _remove(spec_yaml: str, failed: list[dict]) -> tuple[str, list[str]]:
    """The spec without the incidents whose checks failed (a suite never asks about an incident the
    data does not show)."""
    spec = spec_to_dict(parse_spec_text(spec_yaml, "spec.yaml"))
    gone = sorted({f["incident"] for f in failed if f["incident"]})
    spec["incidents"] = [i for i in spec.get("incidents", []) if i.get("id") not in gone]
    return dump_spec(Spec.model_validate(spec)), [f"{i}: removed ({', '.join(f['name'] for f in failed if f['incident'] == i)} "
                                                  "failed)" for i in gone]


def pattern_injector(state: BuildState, runtime: Runtime[BuildContext]) -> dict:
    """Generate + check, adjusting failing incidents up to ``max_injection_retries`` times."""
    ctx = runtime.context
    spec_yaml = state["spec_yaml"]
    pre = []
    if ctx.model is not None and state.get("draft") and not state.get("inferred_yaml"):
        spec_yaml, entry = _llm_plan(ctx.model, state, spec_yaml)
        pre.append(entry)
    spec = parse_spec_text(spec_yaml, "spec.yaml")
    names = ", ".join(f"{i.kind} '{i.id}'" for i in spec.incidents) or "none"
    log = pre + [decision("pattern_injector", "pattern_injector", f"incidents: {names}", "from the spec")]
    horizon_days = max(1, int(spec.horizon_seconds // 86400))
    failed: list[dict] = []
    warned: list[str] = []
    for attempt in range(ctx.max_injection_retries + 1):
        res = generate_checked_bundle(spec_yaml, state["out"], seed=ctx.seed, progress=ctx.progress)
        failed = res["failed"]
        rows = ", ".join(f"{t}: {n:,}" for t, n in res["rows"].items())
        log.append(decision("pattern_injector", "pattern_injector", f"generated ({rows})",
                            f"attempt {attempt + 1}; {len(failed)} check(s) failed"))
        if not any(f["incident"] for f in failed):
            break
        if attempt == ctx.max_injection_retries:  # out of adjustments: the failing incidents go
            told = spec_to_dict(parse_spec_text(spec_yaml, "spec.yaml"))
            warned += [f"the incident you described ('{_description(told, i)}') does not show in the data as stated; "
                       "it was left out" for i in sorted(stated_incidents(told) & {f["incident"] for f in failed})]
            spec_yaml, changes = _remove(spec_yaml, failed)
            log += [decision("pattern_injector", "pattern_injector", c, "still failing after the allowed "
                             "adjustments") for c in changes]
            res = generate_checked_bundle(spec_yaml, state["out"], seed=ctx.seed, progress=ctx.progress)
            failed = res["failed"]
            if any(f["incident"] for f in failed):
                return {"error": "incident checks still fail after removing the failing incidents: "
                                 + ", ".join(f"{f['name']}:{f['incident']}" for f in failed if f["incident"]),
                        "error_code": 3, "decisions": log}
            break
        spec_yaml, changes, dropped = _retry(spec_yaml, failed, horizon_days)
        log += [decision("pattern_injector", "pattern_injector", c, "a pattern check failed") for c in changes]
        warned += dropped
    stale = [s for s in state.get("stale", []) if s != "data"]
    out = {"spec_yaml": spec_yaml, "bundle_ready": True, "checks_failed": [f"{f['name']}:{f['incident']}"
                                                                          for f in failed],
           "stale": stale, "questions": 0, "decisions": log}
    if warned:  # said on the console with what was not understood
        out["not_understood"] = list(state.get("not_understood") or []) + warned
    return out


def _llm_plan(model, state: BuildState, spec_yaml: str) -> tuple[str, dict]:
    """Incidents chosen by the LLM for the domain (validated; the rules' incidents stay otherwise)."""
    parsed = parse_spec_text(spec_yaml, "spec.yaml")
    spec = spec_to_dict(parsed)
    days = max(1, int(parsed.horizon_seconds // 86400))
    e = spec["entities"][0]
    inp = DomainInput(description=state.get("request", ""), entity=e["name"],
                      measurements=[m["name"] for m in e.get("measurements", [])])
    notes: list[str] = []

    def check(plan: IncidentPlan) -> list[str]:
        new = apply_incident_plan(spec, [i.model_dump() for i in plan.incidents], days)
        return (["none of the incidents names a listed measurement or a known kind"] if not new["incidents"]
                else _spec_problems(new))

    plan = structured_call(model, PATTERN_INJECTOR.render(inp), IncidentPlan, purpose="pattern_injector",
                           notes=notes, check=check)
    if plan is None:
        return spec_yaml, decision("pattern_injector", "pattern_injector", "incidents from the rules",
                                   "LLM plan unusable: " + ("; ".join(notes) or "no answer"))
    new = Spec.model_validate(apply_incident_plan(spec, [i.model_dump() for i in plan.incidents], days))
    return dump_spec(new), decision("pattern_injector", "pattern_injector",
                                    "incident plan from the LLM: " + ", ".join(i.kind for i in new.incidents),
                                    "validated; checked after generation like any incident")
