"""Pattern-injector agent: generate the world with the spec's incidents, check that every incident
is really in the data, and re-place or strengthen the ones whose check fails (bounded retries).

An incident still failing after the retries is removed from the spec (a suite must never ask about
an incident the data does not show) and the decision log says so.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from agents.lc_tools import generate_checked_bundle
from graph.context import BuildContext
from graph.state import BuildState, decision


def _retry(spec_yaml: str, failed: list[dict], horizon_days: int) -> tuple[str, list[str]]:
    """The spec with failing incidents adjusted (or removed when nothing can be adjusted)."""
    from tools.describe.adjust import adjust_incident
    from tools.spec.io import dump_spec, parse_spec_text, spec_to_dict
    from tools.spec.model import Spec

    spec = spec_to_dict(parse_spec_text(spec_yaml, "spec.yaml"))
    by_incident: dict[str, list[str]] = {}
    for f in failed:
        if f["incident"]:
            by_incident.setdefault(f["incident"], []).append(f["name"])
    changes = []
    for inc, names in by_incident.items():
        what = adjust_incident(spec, inc, names, horizon_days)
        if what is None:
            spec["incidents"] = [i for i in spec.get("incidents", []) if i.get("id") != inc]
            what = f"{inc}: {', '.join(names)} failed and cannot be adjusted; removed"
        changes.append(what)
    return dump_spec(Spec.model_validate(spec)), changes


def pattern_injector(state: BuildState, runtime: Runtime[BuildContext]) -> dict:
    """Generate + check, adjusting failing incidents up to ``max_injection_retries`` times."""
    from tools.spec import parse_spec_text

    ctx = runtime.context
    spec_yaml = state["spec_yaml"]
    spec = parse_spec_text(spec_yaml, "spec.yaml")
    names = ", ".join(f"{i.kind} '{i.id}'" for i in spec.incidents) or "none"
    log = [decision("pattern_injector", "pattern_injector", f"incidents: {names}", "from the spec")]
    horizon_days = max(1, int(spec.horizon_seconds // 86400))
    failed: list[dict] = []
    for attempt in range(ctx.max_injection_retries + 1):
        res = generate_checked_bundle.invoke({"spec_yaml": spec_yaml, "out": state["out"], "seed": ctx.seed})
        failed = res["failed"]
        rows = ", ".join(f"{t}: {n:,}" for t, n in res["rows"].items())
        log.append(decision("pattern_injector", "pattern_injector", f"generated ({rows})",
                            f"attempt {attempt + 1}; {len(failed)} check(s) failed"))
        if not any(f["incident"] for f in failed) or attempt == ctx.max_injection_retries:
            break
        spec_yaml, changes = _retry(spec_yaml, failed, horizon_days)
        log += [decision("pattern_injector", "pattern_injector", c, "a pattern check failed") for c in changes]
    stale = [s for s in state.get("stale", []) if s != "data"]
    return {"spec_yaml": spec_yaml, "bundle_ready": True, "checks_failed": [f"{f['name']}:{f['incident']}"
                                                                           for f in failed],
            "stale": stale, "questions": 0, "decisions": log}
