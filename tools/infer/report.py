"""report.md of an inference: inputs, detected roles, relations, fallbacks and guesses, fidelity table."""

from __future__ import annotations

from tools.common.durations import format_duration
from tools.infer.fidelity import CADENCE_REL, KS_MAX, ROWS_REL, TRANSITION_MAX, TV_MAX, FidelityRow


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    return out


def render_report(result, fidelity: list[FidelityRow] | None = None) -> str:
    """Markdown report of an InferResult (and its fidelity rows, when computed)."""
    spec = result.spec
    out = [f"# Inferred spec `{spec.name}`", "",
           f"Start {spec.start}, horizon {spec.horizon}, {len(spec.entities)} entity type(s), seed {spec.seed}.", ""]
    if result.profiles:
        out += ["## Tables", ""]
        out += _table(["table", "file", "rows", "key", "entities", "rows are", "cadence", "missing rows"], [
            [p.name, p.table.path, p.table.rows, " + ".join(p.keys) or "(none)", p.entities,
             {"periodic": "periodic metrics", "on_transition": "events (one per state entry)"}.get(p.emission, "one per entity"),
             format_duration(p.cadence) if p.cadence else "", f"{p.missing_rate:.1%}" if p.emission else ""]
            for p in result.profiles])
        out += ["", "## Detected column roles", ""]
        out += _table(["table", "column", "role", "kind", "distinct", "missing", "note"], [
            [p.name, c.name, c.role, c.kind, c.distinct, f"{c.missing:.1%}", c.note]
            for p in result.profiles for c in p.columns.values()])
        out += [""]
    out += ["## Relations", ""]
    out += [f"- {r} (coverage {r.coverage:.0%})" for r in result.relations] or ["- none detected"]
    out += ["", "## Fallbacks and notes", ""]
    out += [f"- {n}" for n in result.notes] or ["- none"]
    if result.guesses:
        out += ["", "## Guesses (no sample data: defaults from types and names)", ""]
        out += [f"- {g}" for g in result.guesses]
    if fidelity:
        passed = sum(r.ok for r in fidelity)
        out += ["", "## Fidelity (regenerated from the fitted spec vs the input)", "",
                f"Thresholds: KS <= {KS_MAX} (numeric), total variation <= {TV_MAX} (labels; static attributes "
                f"compared per entity), transition distance <= {TRANSITION_MAX} (visit-weighted mean TV of the "
                f"transition rows), cadence equal (periodic) or median gap within {CADENCE_REL:.0%} (events), "
                f"same entity count, row count within {ROWS_REL:.0%}. KS and TV thresholds are raised to the 1% two-sample critical value "
                f"1.63*sqrt((n+m)/(n*m)) when that is larger (small samples). {passed} of {len(fidelity)} checks pass.", ""]
        out += _table(["table", "column", "metric", "value", "threshold", "ok", "detail"], [
            [r.table, r.column, r.metric, f"{r.value:.3f}", r.threshold, "yes" if r.ok else "NO", r.detail]
            for r in fidelity])
    return "\n".join(out) + "\n"
