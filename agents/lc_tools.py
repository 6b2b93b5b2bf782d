"""The only place that wraps ``tools/`` functions as LangChain tools.

Tool-calling agents (with an LLM) bind these; the offline agents invoke the very same tools, so
both paths run one implementation. Every tool takes and returns JSON-native values (paths, YAML
text, dicts), never DataFrames.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.tools import tool


@tool
def describe_domain(description: str) -> dict[str, Any]:
    """Read a plain-language domain description into a draft: entity, count, measurements, states,
    cadence, horizon, attributes and incident wishes, with the catalog entry each matched."""
    from knowledge.catalog import load_catalog
    from tools.describe.understand import understand

    return understand(description, load_catalog()).model_dump()


@tool
def edit_draft(draft: dict[str, Any], instruction: str) -> dict[str, Any]:
    """Apply an edit instruction ('80 turbines every 5 minutes', 'add an outage') to a draft;
    returns {draft, changes}."""
    from tools.describe.draft import DomainDraft
    from tools.describe.edit import apply_edit

    new, changes = apply_edit(DomainDraft.model_validate(draft), instruction)
    return {"draft": new.model_dump(), "changes": changes}


@tool
def infer_spec(files: list[str], ddl: str | None = None, name: str = "inferred", seed: int = 0) -> dict[str, Any]:
    """Fit a spec from sample tables (CSV/Parquet, one per table) and/or a SQL DDL file; returns
    {spec_yaml (with provenance comments), notes, guesses}."""
    from tools.infer import infer

    result, _report = infer(files, ddl, name=name, seed=seed, fidelity=False)
    return {"spec_yaml": result.yaml_text, "notes": list(result.notes), "guesses": list(result.guesses)}


@tool
def write_spec(draft: dict[str, Any], seed: int = 0) -> dict[str, Any]:
    """Turn a draft into a validated spec; returns {spec_yaml, decisions} (decisions: the defaults
    taken where the draft was silent; notes: what was adjusted or not understood)."""
    from knowledge.catalog import load_catalog
    from tools.describe.compose_world import compose_world
    from tools.describe.draft import DomainDraft
    from tools.spec.io import dump_spec

    spec, decisions, notes = compose_world(DomainDraft.model_validate(draft), load_catalog(), seed)
    return {"spec_yaml": dump_spec(spec), "decisions": decisions, "notes": notes}


@tool
def validate_spec(spec_yaml: str) -> dict[str, Any]:
    """Validate a spec's YAML text; returns {ok, errors} with every problem's path, line and fix."""
    from tools.spec import SpecError
    from tools.spec.io import parse_spec_text

    try:
        parse_spec_text(spec_yaml, "spec.yaml")
    except SpecError as exc:
        return {"ok": False, "errors": str(exc)}
    return {"ok": True, "errors": ""}


@tool
def generate_checked_bundle(spec_yaml: str, out: str, seed: int | None = None) -> dict[str, Any]:
    """Generate the bundle (data, incidents.json, checks.json, report.md) at ``out`` and run its
    checks; returns {failed: [{name, incident, detail}], rows: {table: n}}."""
    from tools.checks import check_bundle
    from tools.generate import generate_bundle
    from tools.spec.io import parse_spec_text

    spec = parse_spec_text(spec_yaml, "spec.yaml")
    found: list = []
    summary = generate_bundle(spec, Path(out), seed=seed, force=True, progress=_PROGRESS.get("sink"),
                              finalize=lambda tmp: found.extend(check_bundle(tmp)))
    failed = [{"name": c.name, "incident": c.incident, "detail": c.detail} for c in found if not c.passed]
    rows = {t.name: t.rows for t in summary.tables}
    return {"failed": failed, "rows": rows}


@tool
def synthesize_questions(out: str, n: int | None = None, seed: int = 0, prefer: list[str] | None = None,
                         families: list[str] | None = None) -> dict[str, Any]:
    """Synthesize the question suite of a bundle (qa.jsonl), taking templates named in ``prefer``
    twice per round and adding the extra ``families`` (shape, detection, forecast, claim,
    false_premise, unanswerable); returns {questions, by_family, shortfall, disagreements}."""
    from tools.queries.suite import build_suite

    suite = build_suite(out, n=n, seed=seed, prefer=prefer, families=families or ())
    fams: dict[str, int] = {}
    for r in suite.records:
        fams[r["family"]] = fams.get(r["family"], 0) + 1
    return {"questions": len(suite.records), "by_family": fams, "shortfall": suite.shortfall,
            "disagreements": len(suite.disagreements)}


# Generation progress is a live object (rich), not a tool argument: the CLI sets it for the run.
_PROGRESS: dict[str, Any] = {}


def set_progress(sink: Any) -> None:
    """Where ``generate_checked_bundle`` reports progress (None: nowhere)."""
    _PROGRESS["sink"] = sink


BUILD_TOOLS = [describe_domain, edit_draft, infer_spec, write_spec, validate_spec, generate_checked_bundle, synthesize_questions]
