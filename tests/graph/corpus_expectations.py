"""Check a built bundle against the expectations a domain expert wrote for its description.

The expectations files (``tests/data/descriptions/<slug>.yaml``) are written from the description
text alone; this module reads the bundle (``spec.yaml`` and ``data.duckdb``) and says, in one plain
sentence each, which expectations the bundle does not meet. ``evaluate_bundle`` also returns the
met ones, so a report can show met/total.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from tests.graph.corpus_data import BundleData
from tests.graph.corpus_provenance import count_provenance, provenance_outcomes
from tools.spec import load_spec, parse_duration

CORPUS_DIR = Path(__file__).resolve().parents[1] / "data" / "descriptions"
KINDS = ("periodic", "lifecycle", "mixed")
EXPECT_KEYS = {"horizon", "entities", "foreign", "words_only"}
ENTITY_KEYS = {"match", "emission", "count", "count_min", "count_max", "cadence", "states", "terminal",
               "attributes", "measurements", "directions", "parents"}
EMISSIONS = {"periodic": "periodic", "event_log": "on_transition"}


@dataclass(frozen=True)
class Outcome:
    """One expectation: what was expected, and the sentence saying why it is unmet (None if met)."""

    expectation: str
    failure: str | None = None

    @property
    def met(self) -> bool:
        return self.failure is None


def check_bundle(bundle_dir: Path, expect: dict, description: str = "") -> list[str]:
    """One plain sentence per unmet expectation of ``expect`` in the bundle (empty: all met)."""
    return [o.failure for o in evaluate_bundle(bundle_dir, expect, description) if o.failure]


def evaluate_bundle(bundle_dir: Path, expect: dict, description: str = "") -> list[Outcome]:
    """Every expectation of ``expect`` with its outcome in the bundle at ``bundle_dir`` (``description``: the
    text the bundle was built from, for ``words_only``; see ``tests.graph.corpus_provenance``)."""
    bundle_dir = Path(bundle_dir)
    try:
        spec = load_spec(bundle_dir / "spec.yaml")
    except Exception as exc:  # noqa: BLE001 - any unreadable spec fails every expectation the same way
        return [Outcome("a readable spec.yaml", f"spec.yaml of {bundle_dir} does not load: {exc}")]
    con = duckdb.connect(str(bundle_dir / "data.duckdb"), read_only=True)
    try:
        data = BundleData(con)
        out: list[Outcome] = []
        if "horizon" in expect:
            out.append(_horizon(spec, expect["horizon"]))
        for ent in expect.get("entities", []):
            out.extend(_entity(spec, data, ent))
        return out + provenance_outcomes(spec, data, expect, description, Outcome)
    finally:
        con.close()


def _rx(pattern: str, text: str) -> bool:
    return re.search(pattern, text, re.IGNORECASE) is not None


def _norm(label) -> str:
    text = re.sub(r"[^a-z0-9.]", "", str(label).lower())
    return re.sub(r"^(\d+)\.0+$", r"\1", text)  # 12.0 (a numeric column) is the stated value 12


def _same_value(stated, label) -> bool:
    """A stated value and a label agree; a stated number also matches that number with a unit ('12 months')."""
    a, b = _norm(stated), _norm(label)
    return a == b or (a.replace(".", "").isdigit() and re.fullmatch(re.escape(a) + r"[a-z]+", b) is not None)


def _horizon(spec, want: str | list[str]) -> Outcome:
    """``want`` is a duration, or [shortest, longest] where the text is loose ("over a month")."""
    lo, hi = (want, want) if isinstance(want, str) else want
    label = f"horizon {want}"
    if not parse_duration(lo) - 1e-6 <= spec.horizon_seconds <= parse_duration(hi) + 1e-6:
        asked = lo if lo == hi else f"{lo} to {hi}"
        return Outcome(label, f"The horizon is {spec.horizon}, but the description asks for {asked}.")
    return Outcome(label)


def count_expectations(expect: dict) -> int:
    """How many expectations ``expect`` holds (all unmet when the build fails)."""
    return ("horizon" in expect) + sum(1 + _count_items(ent) for ent in expect.get("entities", [])) + \
        count_provenance(expect)


def _count_items(ent: dict) -> int:
    """How many expectations an entity block holds besides being found (all unmet when it is missing)."""
    n = sum(k in ent for k in ("emission", "count", "count_min", "count_max", "cadence"))
    n += len(ent.get("states", [])) + (1 if ent.get("states") else 0) + len(ent.get("terminal", []))
    for a in ent.get("attributes", []):
        n += 1 + ("values" in a) + ("n_values" in a)
    for m in ent.get("measurements", []):
        n += 1 + ("range" in m) + bool(m.get("integer")) + ("unit" in m)
    return n + len(ent.get("directions", [])) + len(ent.get("parents", []))


def _entity(spec, data: BundleData, ent: dict) -> list[Outcome]:
    pattern = ent["match"]
    found = next((e for e in spec.entities if _rx(pattern, e.name)), None)
    if found is None:
        names = ", ".join(e.name for e in spec.entities)
        missing = _count_items(ent)
        return [Outcome(f"entity /{pattern}/", f"No entity matches '{pattern}' (the spec has: {names}); "
                                                f"its {missing} other expectation(s) cannot be met.")] + \
            [Outcome(f"entity /{pattern}/ item {i}", "") for i in range(missing)]
    name, table = found.name, found.table_name
    out = [Outcome(f"entity /{pattern}/")]
    if "emission" in ent:
        kind = found.emission.kind if found.emission else "static"
        want = EMISSIONS.get(ent["emission"], ent["emission"])
        out.append(Outcome(f"{name} emission", None if kind == want else
                           f"Entity {name} is emitted as {kind}, but the description implies {ent['emission']}."))
    if "count" in ent:
        out.append(Outcome(f"{name} count", None if found.count == ent["count"] else
                           f"Entity {name} has count {found.count}, but the description says {ent['count']}."))
    for key, side, ok in (("count_min", "below", lambda n, b: n >= b), ("count_max", "above", lambda n, b: n <= b)):
        if key in ent:
            out.append(Outcome(f"{name} {key}", None if ok(found.count, ent[key]) else
                               f"Entity {name} has count {found.count}, {side} the {ent[key]} the description implies."))
    if "cadence" in ent:
        have = found.emission.cadence if found.emission else None
        ok = have is not None and abs(parse_duration(have) - parse_duration(ent["cadence"])) < 1e-6
        out.append(Outcome(f"{name} cadence", None if ok else
                           f"Entity {name} reports every {have or '(no cadence)'}, but the description says every {ent['cadence']}."))
    out.extend(_states(found, data, ent))
    out.extend(_attributes(found, data, ent))
    out.extend(_measurements(found, data, table, ent))
    out.extend(_directions(found, data, table, ent))
    return out


def _state_names(found) -> list[str]:
    return list(found.states.states) if found.states else []


def _states(found, data: BundleData, ent: dict) -> list[Outcome]:
    name, names = found.name, _state_names(found)
    out = []
    for pattern in ent.get("states", []):
        ok = any(_rx(pattern, s) for s in names)
        out.append(Outcome(f"{name} state /{pattern}/", None if ok else
                           f"Entity {name} has no state matching '{pattern}' (states: {', '.join(names) or 'none'})."))
    if ent.get("states"):
        col = _visible_state_column(found, data, [])
        out.append(Outcome(f"{name} states visible", None if col else
                           f"The states of {name} are not visible in table {found.table_name} (no state column)."))
    terminal = found.states.terminal if found.states else []
    for pattern in ent.get("terminal", []):
        ok = any(_rx(pattern, s) for s in terminal)
        out.append(Outcome(f"{name} terminal /{pattern}/", None if ok else
                           f"Entity {name} has no terminal state matching '{pattern}' (terminal: {', '.join(terminal) or 'none'})."))
    return out


def _visible_state_column(found, data: BundleData, patterns: list[str]) -> str | None:
    """The column of the entity's table whose values show the states matching every pattern."""
    if not found.states:
        return None
    cols = data.columns(found.table_name)
    candidates = [c for c in [found.states.column, *found.states.derived_columns] if c and c in cols]
    for col in candidates:
        values = data.distinct(found.table_name, col)
        if all(any(_rx(p, v) for v in values) for p in patterns):
            return col
    return None


def _attributes(found, data: BundleData, ent: dict) -> list[Outcome]:
    name, out = found.name, []
    visible = set(data.columns(found.table_name)) | set(data.columns(found.static_table_name))
    for want in ent.get("attributes", []):
        pattern = want["match"]
        attr = next((a for a in found.attributes if _rx(pattern, a.name)), None)
        label = f"{name} attribute /{pattern}/"
        if attr is None:
            have = ", ".join(a.name for a in found.attributes) or "none"
            out.append(Outcome(label, f"Entity {name} has no attribute matching '{pattern}' (attributes: {have})."))
            out.extend(Outcome(f"{label} {k}", "") for k in ("values", "n_values") if k in want)
            continue
        out.append(Outcome(label, None if attr.name in visible else
                           f"Attribute {name}.{attr.name} is not written in any table of {name}."))
        labels = _attribute_values(found, data, attr)
        if "values" in want:
            missing = [v for v in want["values"] if labels is None or not any(_same_value(v, x) for x in labels)]
            out.append(Outcome(f"{label} values", None if not missing else
                               f"Attribute {name}.{attr.name} lacks the values {missing} the description names "
                               f"(it has: {_show(labels) if labels is not None else 'no written values'})."))
        if "n_values" in want:
            n = len(labels) if labels is not None else None
            out.append(Outcome(f"{label} n_values", None if n == want["n_values"] else
                               f"Attribute {name}.{attr.name} has {n if n is not None else 'non-categorical'} values, "
                               f"but the description names {want['n_values']}."))
    for pattern in ent.get("parents", []):
        fk = next((a for a in found.attributes if a.dist.kind == "foreign_key"
                   and (_rx(pattern, a.name) or _rx(pattern, a.dist.entity))), None)
        ok = fk is not None and fk.name in data.columns(found.table_name)
        out.append(Outcome(f"{name} parent /{pattern}/", None if ok else
                           f"The rows of {name} do not carry the id of a parent matching '{pattern}' "
                           f"(no foreign-key column written in {found.table_name})."))
    return out


def _attribute_values(found, data: BundleData, attr) -> list[str] | None:
    """The labels of a categorical attribute; else the distinct values written in the data."""
    if attr.dist.kind == "categorical":
        return list(attr.dist.values)
    for table in (found.static_table_name, found.table_name):
        if attr.name in data.columns(table):
            return data.distinct(table, attr.name)
    return None


@dataclass(frozen=True)
class _Column:
    """Where a named quantity is written: a measurement, or a numeric attribute of the entity."""

    name: str
    unit: str | None
    table: str
    kind: str  # "measurement" or "attribute"


_NOT_NUMERIC = {"categorical", "foreign_key", "constant"}


def _find_quantity(found, data: BundleData, pattern: str) -> tuple[_Column | None, str]:
    """The written column of the first measurement matching ``pattern``; failing that, of the first
    numeric attribute (a per-entity constant such as a parcel's weight is an attribute in a spec).
    Returns (column, "") or (None, why not)."""
    table = found.table_name
    m = next((m for m in found.measurements if _rx(pattern, m.name)), None)
    if m is not None:
        if not m.hidden and m.name in data.columns(table):
            return _Column(m.name, m.unit, table, "measurement"), ""
        return None, f"Measurement {found.name}.{m.name} is not written in table {table}."
    for a in found.attributes:
        if a.dist.kind in _NOT_NUMERIC or not _rx(pattern, a.name):
            continue
        for t in (table, found.static_table_name):
            if t and a.name in data.columns(t):
                return _Column(a.name, a.unit, t, "attribute"), ""
    have = ", ".join(x.name for x in found.measurements) or "none"
    return None, f"Entity {found.name} has no measurement matching '{pattern}' (measurements: {have})."


def _measurements(found, data: BundleData, table: str, ent: dict) -> list[Outcome]:
    name, out = found.name, []
    for want in ent.get("measurements", []):
        pattern, words = want["match"], want.get("words", want["match"])
        label = f"{name} measurement '{words}'"
        col, why = _find_quantity(found, data, pattern)
        extra = [k for k in ("range", "integer", "unit") if want.get(k) not in (None, False)]
        if col is None:
            out.append(Outcome(label, f"'{words}': {why}"))
            out.extend(Outcome(f"{label} {k}", "") for k in extra)
            continue
        out.append(Outcome(label))
        if "unit" in want:
            ok = col.unit is not None and _rx(want["unit"], col.unit)
            out.append(Outcome(f"{label} unit", None if ok else
                               f"{name}.{col.name} ('{words}') has unit {col.unit!r}, but the description gives "
                               f"'{want['unit']}'."))
        if "range" in want:
            out.append(_range(data, col.table, col.name, want["range"], label))
        if want.get("integer"):  # integer: false is no requirement (whole values are not wrong there)
            out.append(_integer(data, col.table, col.name, label))
    return out


def _range(data: BundleData, table: str, column: str, bounds: list, label: str) -> Outcome:
    lo, hi = bounds
    span = data.span(table, column)
    if span is None or not span[2]:
        return Outcome(f"{label} range", f"Column {table}.{column} has no numeric values.")
    vmin, vmax, _ = span
    if (lo is not None and vmin < lo) or (hi is not None and vmax > hi):
        return Outcome(f"{label} range", f"{table}.{column} spans [{vmin:g}, {vmax:g}], outside the plausible "
                                         f"range [{_fmt(lo)}, {_fmt(hi)}].")
    return Outcome(f"{label} range")


def _show(labels: list[str], most: int = 8) -> str:
    more = f", ... ({len(labels)} in all)" if len(labels) > most else ""
    return ", ".join(map(str, labels[:most])) + more


def _fmt(x) -> str:
    return "open" if x is None else f"{x:g}"


def _integer(data: BundleData, table: str, column: str, label: str) -> Outcome:
    n_frac = data.fractional(table, column)
    if n_frac is None:
        return Outcome(f"{label} integer", f"Column {table}.{column} is not numeric.")
    if n_frac:
        return Outcome(f"{label} integer", f"{table}.{column} must be whole numbers, but {n_frac} values have decimals.")
    return Outcome(f"{label} integer")


def _directions(found, data: BundleData, table: str, ent: dict) -> list[Outcome]:
    name, out = found.name, []
    for d in ent.get("directions", []):
        label = f"{name} {d['measurement']} {d['direction']} in {d['state']} than {d['vs']}"
        col, _ = _find_quantity(found, data, d["measurement"])
        if col is None or col.table != table:
            out.append(Outcome(label, f"Cannot compare '{d['measurement']}' across states of {name}: "
                                      f"no such column in {table}."))
            continue
        state_col = _visible_state_column(found, data, [d["state"], d["vs"]])
        if state_col is None:
            out.append(Outcome(label, f"Cannot compare {col.name} in '{d['state']}' vs '{d['vs']}': state column "
                                      f"not visible in {table} (or it lacks those states)."))
            continue
        means = [_mean_in(data, table, state_col, col.name, pattern) for pattern in (d["state"], d["vs"])]
        if None in means:
            out.append(Outcome(label, f"Cannot compare {col.name} in '{d['state']}' vs '{d['vs']}': no values in "
                                      "one of the states."))
            continue
        ok = means[0] < means[1] if d["direction"] == "lower" else means[0] > means[1]
        out.append(Outcome(label, None if ok else
                           f"Mean {col.name} is {means[0]:.4g} in '{d['state']}' and {means[1]:.4g} in '{d['vs']}'; "
                           f"an expert expects it {d['direction']} in '{d['state']}'."))
    return out


def _mean_in(data: BundleData, table: str, state_col: str, column: str, pattern: str) -> float | None:
    labels = [v for v in data.distinct(table, state_col) if _rx(pattern, v)]
    return data.mean_where(table, column, state_col, labels)
