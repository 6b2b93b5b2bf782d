"""Names are identifiers, not code; sizes are bounded. Every name a spec gives (tables, columns,
states, incidents, ...) ends up in SQL, in file names or in answers, so each must match a safe
pattern; counts, id widths, horizons and row totals must stay within stated limits.

Limits (README, "Names and limits"): identifiers ``[A-Za-z_][A-Za-z0-9_]*`` (letters may be any
Unicode letter) of at most 63 bytes; labels (states, incident ids, exemplars, epochs, personas,
the spec name) may also contain ``.`` and ``-`` after the first character; ``MAX_COUNT`` entities
per type; ids at most ``MAX_ID_CHARS`` characters; ``MAX_ROWS`` rows per table and
``MAX_ROWS_PER_ENTITY`` per entity (memory per shard is bounded by the larger of the shard size
and one entity's series); the horizon between the years ``MIN_YEAR`` and ``MAX_YEAR``.
"""

from __future__ import annotations

import re
import string
from datetime import timedelta
from typing import TYPE_CHECKING

from tools.common.durations import parse_duration
from tools.common.dwell import dwell_mean_seconds

if TYPE_CHECKING:
    from tools.spec.entity import EntityType
    from tools.spec.model import Spec

Problems = list[tuple[str, str]]

IDENTIFIER = re.compile(r"^[^\W\d]\w*$")
LABEL = re.compile(r"^\w[\w.\-]*$")
MAX_NAME_BYTES = 63  # PostgreSQL's identifier limit; DuckDB and file systems accept it too
MAX_COUNT = 10_000_000
MAX_ID_CHARS = 64
MAX_ROWS = 500_000_000
MAX_QUESTIONS = 10_000
MAX_ROWS_PER_ENTITY = 4_000_000  # one entity's series is simulated in one piece (~600 MB peak at the limit)
MIN_YEAR, MAX_YEAR = 1900, 2200  # pandas/Arrow nanosecond timestamps end in 2262
RESERVED_SUFFIX = "__baseline"


def _check(path: str, value: object, what: str, pattern: re.Pattern) -> Problems:
    kind = "an identifier" if pattern is IDENTIFIER else "a label"
    rule = ("letters, digits and _, not starting with a digit" if pattern is IDENTIFIER
            else "letters, digits, _, . and -, starting with a letter, digit or _")
    if not isinstance(value, str) or not pattern.match(value):
        return [(path, f"{what} {value!r} is not {kind}: use only {rule} (e.g. 'cell_site'); names become "
                       "SQL identifiers, file names and answer labels")]
    if len(value.encode()) > MAX_NAME_BYTES:
        return [(path, f"{what} '{value[:20]}…' is {len(value.encode())} bytes long; keep names to "
                       f"{MAX_NAME_BYTES} bytes")]
    return []


def _entity_names(p: str, e: EntityType) -> Problems:
    out: Problems = []
    ident = [(f"{p}.name", e.name, "entity type name"), (f"{p}.id.column", e.id.column, "id column")]
    for key in ("table", "static_table", "exemplar_column"):
        if getattr(e, key) is not None:
            ident.append((f"{p}.{key}", getattr(e, key), key.replace("_", " ")))
    ident += [(f"{p}.attributes[{j}].name", a.name, "attribute name") for j, a in enumerate(e.attributes)]
    ident += [(f"{p}.measurements[{j}].name", m.name, "measurement name") for j, m in enumerate(e.measurements)]
    if e.emission:
        ident.append((f"{p}.emission.timestamp_column", e.emission.timestamp_column, "timestamp column"))
    labels = []
    if e.states:
        sm = e.states
        if sm.column is not None:
            ident.append((f"{p}.states.column", sm.column, "state column"))
        ident += [(f"{p}.states.derived_columns", c, "derived column") for c in sm.derived_columns]
        ident += [(f"{p}.states.flags", c, "flag column") for c in sm.flags]
        labels += [(f"{p}.states.states", s, "state name") for s in sm.states]
    for path, value, what in ident:
        out += _check(path, value, what, IDENTIFIER)
    for path, value, what in labels:
        out += _check(path, value, what, LABEL)
    cols = [value for _, value, what in ident if what not in ("entity type name", "table", "static table")]
    cols = [c for c in cols if isinstance(c, str)]
    folded = sorted({c for c in cols if cols.count(c) == 1 and sum(d.lower() == c.lower() for d in cols) > 1})
    if folded:
        out.append((p, f"column names {', '.join(folded)} differ only in case; SQL treats them as one column, "
                       "rename one"))
    for t in e.table_names:
        if isinstance(t, str) and t.lower().endswith(RESERVED_SUFFIX):
            out.append((p, f"table name '{t}' ends in '{RESERVED_SUFFIX}', which chronoeval reserves for "
                           "baseline tables; rename it"))
    return out


def name_problems(spec: Spec) -> Problems:
    """Every name of the spec that is not a safe identifier (columns, tables) or label (states,
    incidents, exemplars, epochs, personas), plus table/column names equal but for case (DuckDB
    and PostgreSQL fold case, so ``Temp`` and ``temp`` are the same column)."""
    out = _check("name", spec.name, "spec name", LABEL)
    for i, e in enumerate(spec.entities):
        out += _entity_names(f"entities[{i}]", e)
    for key, attr, what in (("exemplars", "name", "exemplar name"), ("epochs", "name", "epoch name"),
                            ("incidents", "id", "incident id"), ("personas", "name", "persona name")):
        for i, item in enumerate(getattr(spec, key)):
            out += _check(f"{key}[{i}].{attr}", getattr(item, attr, None), what, LABEL)
            if key == "incidents" and getattr(item, "root", None) is not None:  # a cascade's root incident
                out += _check(f"{key}[{i}].root.id", item.root.id, what, LABEL)
    tables = [t for e in spec.entities for t in e.table_names]
    folded = {t.lower() for t in tables if sum(u.lower() == t.lower() for u in tables) > 1 and tables.count(t) == 1}
    if folded:
        out.append(("entities", f"table names {', '.join(sorted(folded))} differ only in case; SQL treats them "
                                "as one table, rename one"))
    return out


def _row_estimate(e: EntityType, horizon: float) -> float:
    """Rows of the entity's event/metric table at scale 1 (upper-bound flavoured estimate)."""
    if e.emission is None:
        return e.count
    span = horizon
    if e.arrival is not None:
        span = min(horizon, parse_duration(e.arrival.max_duration))
    if e.emission.kind == "periodic" and e.emission.cadence:
        return e.count * (span / parse_duration(e.emission.cadence) + 1)
    if e.states is not None and e.states.terminal:  # trajectories end: a few events per entity
        return e.count * len(e.states.states)
    try:
        dwells = [dwell_mean_seconds(s.dwell) for s in (e.states.states.values() if e.states else []) if s.dwell]
    except OverflowError:
        dwells = []
    typical = max(sum(dwells) / len(dwells), 1e-3) if dwells else span
    return e.count * (span / typical + 1)


def row_estimates(spec: Spec, scale: float = 1.0) -> dict[str, float]:
    """Estimated rows per event/metric table of ``spec`` at ``scale``."""
    return {e.table_name: _row_estimate(e, spec.horizon_seconds) * scale for e in spec.entities if e.emission}


def row_budget_problem(spec: Spec, scale: float = 1.0) -> tuple[str, str] | None:
    """The first table whose estimated rows exceed ``MAX_ROWS`` at ``scale``, with the fix."""
    for i, e in enumerate(spec.entities):
        if not e.emission:
            continue
        rows = _row_estimate(e, spec.horizon_seconds) * scale
        if rows > MAX_ROWS:
            how = (f"count {e.count} x horizon {spec.horizon} / cadence {e.emission.cadence}"
                   if e.emission.kind == "periodic" else f"count {e.count} x horizon {spec.horizon} / mean dwell")
            at = f" at scale {scale:g}" if scale != 1 else ""
            return (f"entities[{i}]", f"table '{e.table_name}' would hold about {rows:.3g} rows ({how}){at}, more "
                                      f"than the limit of {MAX_ROWS:,}; raise the cadence, shorten the horizon, "
                                      "lower the count or the --scale")
    return None


def scale_problems(spec: Spec, scale: float) -> Problems:
    """Limits broken only once counts are multiplied by ``scale`` (checked by generate)."""
    out: Problems = []
    for i, e in enumerate(spec.entities):
        if e.count * scale > MAX_COUNT:
            out.append((f"entities[{i}].count", f"{e.count:,} x scale {scale:g} is more than the limit of "
                                                f"{MAX_COUNT:,} entities; lower --scale"))
    out += _scaled_target_problems(spec, scale)
    problem = row_budget_problem(spec, scale)
    return out or ([problem] if problem else [])


def _scaled_target_problems(spec: Spec, scale: float) -> Problems:
    """Incidents that ask for more random targets than a scaled-down entity type still has."""
    import math

    counts = {e.name: max(1, int(round(e.count * scale))) for e in spec.entities}
    full = {e.name: e.count for e in spec.entities}
    out: Problems = []
    for i, inc in enumerate(spec.incidents):
        root = getattr(inc, "root", None) or inc
        target = getattr(root, "target", None)
        k = getattr(target, "random", None)
        if not k or target.entity not in counts or counts[target.entity] >= k:
            continue
        least = math.ceil((k - 0.5) / full[target.entity] * 1000) / 1000
        out.append((f"incidents[{i}].target.random",
                    f"--scale {scale:g} leaves {counts[target.entity]} {target.entity} entit"
                    f"{'y' if counts[target.entity] == 1 else 'ies'} ({full[target.entity]:,} x {scale:g}), fewer "
                    f"than the {k} this incident ({root.id}) needs; use --scale {least:g} or more"))
    return out


def id_format_problem(fmt: str) -> str | None:
    """Why an id format is unsafe to use (fields other than ``{i}``, ids too long), or None."""
    try:
        parts = list(string.Formatter().parse(fmt))
    except ValueError as exc:
        return f"id format {fmt!r} is not a format string ({exc}); write e.g. 'SENSOR_{{i:04d}}'"
    widths = [int(w) for _, field, spec, _ in parts if field is not None for w in re.findall(r"\d+", spec or "")]
    literal = sum(len(lit) for lit, *_ in parts)
    if any(w > MAX_ID_CHARS for w in widths) or literal > MAX_ID_CHARS:
        return f"id format {fmt!r} makes ids longer than {MAX_ID_CHARS} characters; use e.g. 'SENSOR_{{i:04d}}'"
    if any(field not in (None, "i") for _, field, _, _ in parts):
        return f"id format {fmt!r} must use only the field {{i}}, e.g. 'SENSOR_{{i:04d}}'"
    return None


def limit_problems(spec: Spec) -> Problems:
    """Sizes beyond the stated limits: entity counts, id lengths, the horizon's years, rows per table."""
    out: Problems = []
    for i, e in enumerate(spec.entities):
        if e.count > MAX_COUNT:
            out.append((f"entities[{i}].count", f"{e.count:,} entities is more than the limit of {MAX_COUNT:,}; "
                                                "lower the count (use --scale for bigger worlds within the limit)"))
        msg = id_format_problem(e.id.format)
        if msg is None and len(e.id.format.format(i=min(e.count, MAX_COUNT))) > MAX_ID_CHARS:
            msg = f"id format {e.id.format!r} makes ids longer than {MAX_ID_CHARS} characters"
        if msg:
            out.append((f"entities[{i}].id.format", msg))
    for i, ep in enumerate(spec.epochs):
        if ep.count > MAX_COUNT:
            out.append((f"epochs[{i}].count", f"{ep.count:,} entities is more than the limit of {MAX_COUNT:,}"))
    if spec.query_plan.n_questions > MAX_QUESTIONS:
        out.append(("query_plan.n_questions", f"{spec.query_plan.n_questions:,} questions is more than the limit "
                                              f"of {MAX_QUESTIONS:,}"))
    try:
        end = spec.start_dt + timedelta(seconds=spec.horizon_seconds)
        bad_years = not (MIN_YEAR <= spec.start_dt.year and end.year < MAX_YEAR)
    except OverflowError:
        bad_years = True
    if bad_years:
        out.append(("horizon", f"start {spec.start} plus horizon {spec.horizon} leaves the supported years "
                               f"{MIN_YEAR}-{MAX_YEAR}; choose a start and horizon inside them"))
        return out
    for i, e in enumerate(spec.entities):
        if e.emission and e.emission.kind == "periodic" and e.emission.cadence:
            span = spec.horizon_seconds if e.arrival is None else min(spec.horizon_seconds,
                                                                       parse_duration(e.arrival.max_duration))
            per = span / parse_duration(e.emission.cadence)
            if per > MAX_ROWS_PER_ENTITY:
                out.append((f"entities[{i}].emission.cadence",
                            f"each {e.name} would write {per:,.0f} rows ({spec.horizon} / {e.emission.cadence}), more "
                            f"than the limit of {MAX_ROWS_PER_ENTITY:,} per entity (memory grows with one entity's "
                            "series); raise the cadence or shorten the horizon"))
    problem = row_budget_problem(spec)
    if problem and not any(p.endswith((".count", ".cadence")) for p, _ in out):
        out.append(problem)
    return out
