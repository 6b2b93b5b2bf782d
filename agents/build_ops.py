"""The build's operations as plain functions over ``tools/`` (JSON-native in and out: paths, YAML
text, dicts; never DataFrames). The graph's agents call them directly on the offline path; a
tool-calling model would bind them with ``langchain.agents.create_agent`` (which makes plain
functions tools), as the chat agent does with its refinements.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from knowledge.catalog import load_catalog
from tools.checks import check_bundle
from tools.describe.compose_world import compose_world
from tools.describe.draft import DomainDraft
from tools.describe.edit import apply_edit
from tools.describe.understand import understand
from tools.generate import generate_bundle
from tools.infer import infer
from tools.queries.suite import build_suite
from tools.spec import SpecError
from tools.spec.io import dump_spec, parse_spec_text


def describe_domain(description: str) -> dict[str, Any]:
    """Read a plain-language domain description into a draft: entity, count, measurements, states,
    cadence, horizon, attributes and incident wishes, with the catalog entry each matched."""
    return understand(description, load_catalog()).model_dump()


def edit_draft(draft: dict[str, Any], instruction: str) -> dict[str, Any]:
    """Apply an edit instruction ('80 turbines every 5 minutes', 'add an outage') to a draft;
    returns {draft, changes}."""
    new, changes = apply_edit(DomainDraft.model_validate(draft), instruction)
    return {"draft": new.model_dump(), "changes": changes}


def infer_spec(files: list[str], ddl: str | None = None, name: str = "inferred", seed: int = 0) -> dict[str, Any]:
    """Fit a spec from sample tables (CSV/Parquet, one per table) and/or a SQL DDL file; returns
    {spec_yaml (with provenance comments), notes, guesses}."""
    result, _report = infer(files, ddl, name=name, seed=seed, fidelity=False)
    return {"spec_yaml": result.yaml_text, "notes": list(result.notes), "guesses": list(result.guesses)}


def write_spec(draft: dict[str, Any], seed: int = 0) -> dict[str, Any]:
    """Turn a draft into a validated spec; returns {spec_yaml, decisions} (decisions: the defaults
    taken where the draft was silent; notes: what was adjusted or not understood)."""
    spec, decisions, notes = compose_world(DomainDraft.model_validate(draft), load_catalog(), seed)
    return {"spec_yaml": dump_spec(spec), "decisions": decisions, "notes": notes}


def validate_spec(spec_yaml: str) -> dict[str, Any]:
    """Validate a spec's YAML text; returns {ok, errors} with every problem's path, line and fix."""
    try:
        parse_spec_text(spec_yaml, "spec.yaml")
    except SpecError as exc:
        return {"ok": False, "errors": str(exc)}
    return {"ok": True, "errors": ""}


def generate_checked_bundle(spec_yaml: str, out: str, seed: int | None = None, progress: Any = None) -> dict[str, Any]:
    """Generate the bundle (data, incidents.json, checks.json, report.md) at ``out`` and run its
    checks (``progress``: a generation progress sink, or None); returns {failed: [{name, incident,
    detail}], rows: {table: n}}."""
    spec = parse_spec_text(spec_yaml, "spec.yaml")
    found: list = []
    summary = generate_bundle(spec, Path(out), seed=seed, force=True, progress=progress,
                              finalize=lambda tmp: found.extend(check_bundle(tmp)))
    failed = [{"name": c.name, "incident": c.incident, "detail": c.detail} for c in found if not c.passed]
    rows = {t.name: t.rows for t in summary.tables}
    return {"failed": failed, "rows": rows}


def synthesize_questions(out: str, n: int | None = None, seed: int = 0, prefer: list[str] | None = None,
                         families: list[str] | None = None) -> dict[str, Any]:
    """Synthesize the question suite of a bundle (qa.jsonl), taking templates named in ``prefer``
    twice per round and adding the extra ``families`` (shape, detection, forecast, claim,
    false_premise, unanswerable); returns {questions, by_family, shortfall, disagreements}."""
    suite = build_suite(out, n=n, seed=seed, prefer=prefer, families=families or ())
    fams: dict[str, int] = {}
    for r in suite.records:
        fams[r["family"]] = fams.get(r["family"], 0) + 1
    return {"questions": len(suite.records), "by_family": fams, "shortfall": suite.shortfall,
            "disagreements": len(suite.disagreements)}
