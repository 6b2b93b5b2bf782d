"""One call for the CLI and the agents: sample tables and/or DDL -> spec, commented YAML, report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from tools.infer.api import InferResult, entity_comments, infer_from_tables
from tools.infer.ddl import infer_from_ddl
from tools.infer.errors import InferError
from tools.infer.render import render_spec
from tools.spec.model import Spec


def _rebased(extra: list, ddl_spec: Spec, fitted: Spec) -> list:
    """DDL-only entity types whose foreign keys point at the fitted entity of the same table, renamed to
    their table's name when their name is taken by a fitted entity."""
    by_table = {t: e.name for e in fitted.entities for t in e.table_names}
    taken = {e.name for e in fitted.entities}
    final = {e.name: e.table_name if e.name in taken else e.name for e in extra}
    target = {e.name: final.get(e.name, by_table.get(e.table_name, e.name)) for e in ddl_spec.entities}
    out = []
    for e in extra:
        attrs = [a.model_copy(update={"dist": a.dist.model_copy(update={"entity": target.get(a.dist.entity, a.dist.entity)})})
                 if a.dist.kind == "foreign_key" else a for a in e.attributes]
        out.append(e.model_copy(update={"attributes": attrs, "name": final[e.name]}))
    return out


def _with_ddl(result: InferResult, ddl_spec: Spec, guesses: list[str]) -> InferResult:
    """Add the DDL's tables that have no sample file (their parts stay guesses)."""
    have = {t for e in result.spec.entities for t in e.table_names}
    extra = _rebased([e for e in ddl_spec.entities if not set(e.table_names) & have], ddl_spec, result.spec)
    if not extra:
        result.notes.append("--ddl: every DDL table has a sample file; the samples were fitted, the DDL not used")
        return result
    try:
        spec = result.spec.model_copy(update={"entities": [*result.spec.entities, *extra]})
        spec = Spec.model_validate(spec.model_dump(by_alias=True))
    except ValidationError as exc:
        result.notes.append(f"--ddl: DDL-only tables not added ({str(exc).splitlines()[-1].strip()})")
        return result
    names = {e.name for e in extra}
    result.guesses += [g for g in guesses if g.split(".")[0].split(":")[0] in names or
                       any(g.startswith(f"{e.table_name}") for e in extra)]
    comments = {}
    for i, e in enumerate(spec.entities):
        if e.name in names:
            comments[f"entities[{i}]"] = ["from the DDL only (no sample rows): defaults from types and names, see report"]
    comments.update(entity_comments(result.fits))
    header = result.yaml_text.split("\nname:")[0].splitlines()
    result.spec = spec
    result.yaml_text = render_spec(spec, comments, [h.removeprefix("# ") for h in header])
    return result


def infer(files: list[str | Path], ddl: str | Path | None = None, *, name: str = "inferred", seed: int = 0,
          fidelity: bool = True, progress: Callable[[str], None] | None = None) -> tuple[InferResult, str]:
    """Fit a spec from ``files`` (and/or ``ddl``) and return the result and its report.md text.

    ``progress(message)`` is called before each step: reading, profiling and fitting each table, then
    the fidelity regeneration (3 calls per file, plus one with ``fidelity``)."""
    from tools.infer.fidelity import fidelity_rows
    from tools.infer.report import render_report

    if not files and ddl is None:
        raise InferError("infer", "nothing to infer from; give CSV/Parquet files (one per table) and/or --ddl schema.sql")
    if files:
        result = infer_from_tables(list(files), name=name, seed=seed, progress=progress)
        if ddl is not None:
            result = _with_ddl(result, *infer_from_ddl(ddl, name=name, seed=seed))
    else:
        spec, guesses = infer_from_ddl(ddl, name=name, seed=seed)
        header = [f"Spec drafted by `chronoeval infer --ddl` from {Path(ddl).name}: no sample rows, so every",
                  "distribution, level and cadence below is a default from column types and names (see the report)."]
        result = InferResult(spec, render_spec(spec, {}, header), [], [], [], guesses=guesses)
    if fidelity and result.profiles:
        if progress:
            progress("regenerating for the fidelity report")
        result.fidelity = fidelity_rows(result.spec, result.profiles, seed, result.relations)
    return result, render_report(result, result.fidelity)
