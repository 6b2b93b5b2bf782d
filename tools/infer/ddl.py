"""A spec from SQL DDL alone: roles and sensible defaults from column types and names (``*_ms``
latency-like, ``*_pct`` bounded 0-100, ``*_count`` integer counts), every default listed as a guess."""

from __future__ import annotations

import re
from pathlib import Path

from tools.infer.errors import InferError
from tools.infer.naming import rename_entities
from tools.infer.read import identifier
from tools.spec.distributions import Categorical, ForeignKey, IntegerRange, Normal
from tools.spec.entity import Attribute, Emission, EntityType, IdSpec
from tools.spec.measurement import IidNoise, Measurement, PoissonNoise, Seasonality
from tools.spec.model import Spec

_CREATE = re.compile(r"create\s+(?:or\s+replace\s+)?table\s+(?:if\s+not\s+exists\s+)?([\w.\"`\[\]]+)\s*\((.*?)\)\s*;",
                     re.IGNORECASE | re.DOTALL)
_FK = re.compile(r"foreign\s+key\s*\(([^)]*)\)\s*references\s+([\w.\"`]+)\s*\(([^)]*)\)", re.IGNORECASE)
_PK = re.compile(r"primary\s+key\s*\(([^)]*)\)", re.IGNORECASE)
_REF = re.compile(r"references\s+([\w.\"`]+)\s*(?:\(([^)]*)\))?", re.IGNORECASE)
_TIME_TYPES = re.compile(r"^(timestamp|timestamptz|datetime|date|time)", re.IGNORECASE)
_INT_TYPES = re.compile(r"^(int|integer|bigint|smallint|tinyint|serial|bigserial|hugeint)", re.IGNORECASE)
_NUM_TYPES = re.compile(r"^(float|double|real|numeric|decimal|number)", re.IGNORECASE)
_BOOL_TYPES = re.compile(r"^(bool|boolean|bit)", re.IGNORECASE)


def _name(raw: str) -> str:
    return identifier(raw.strip().strip('"`[]').split(".")[-1].strip('"`[]'))


def _split(body: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in body:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [p for p in [*parts, cur.strip()] if p]


def parse_ddl(text: str, source: str) -> list[dict]:
    """Tables of ``CREATE TABLE`` statements: columns (name, type), primary key and foreign keys."""
    text = re.sub(r"--[^\n]*", "", text)
    tables = []
    for m in _CREATE.finditer(text + ";"):
        cols, pk, fks = [], [], []
        for item in _split(m.group(2)):
            low = item.lower()
            if (f := _FK.search(item)) and low.startswith(("foreign", "constraint")):
                fks.append(([_name(c) for c in f.group(1).split(",")], _name(f.group(2)),
                            [_name(c) for c in f.group(3).split(",")]))
            elif (p := _PK.search(item)) and low.startswith(("primary", "constraint")):
                pk = [_name(c) for c in p.group(1).split(",")]
            elif not low.startswith(("constraint", "unique", "check", "index", "key ")):
                words = item.split()
                if len(words) < 2:
                    raise InferError(source, f"column '{item}' in table {_name(m.group(1))} has no type; "
                                     "write `name TYPE`")
                col, typ = _name(words[0]), words[1]
                cols.append((col, typ))
                if "primary key" in low:
                    pk = [col]
                if (r := _REF.search(item)):
                    fks.append(([col], _name(r.group(1)), [_name(r.group(2))] if r.group(2) else []))
        tables.append({"name": _name(m.group(1)), "columns": cols, "pk": pk, "fks": fks})
    if not tables:
        raise InferError(source, "no CREATE TABLE statement found; give SQL DDL such as "
                         "`CREATE TABLE links (device_id TEXT, ts TIMESTAMP, latency_ms DOUBLE);`")
    return tables


def _measurement(col: str, typ: str, guesses: list[str], table: str) -> Measurement:
    low = col.lower()
    if low.endswith("_ms") or "latency" in low:
        guesses.append(f"{table}.{col}: latency-like (ms): level 50, noise sd 10, daily peak at 14h, >= 0")
        return Measurement(name=col, unit="ms", base=50, noise=IidNoise(kind="iid", sigma=10), bounds=(0, None),
                           seasonality=[Seasonality(amplitude=10, peak="14h")], decimals=2)
    if re.search(r"(_pct|_percent|percent|utili[sz]ation|_ratio_pct)$", low):
        guesses.append(f"{table}.{col}: percentage: level 50, noise sd 10, bounded 0-100")
        return Measurement(name=col, unit="%", base=50, noise=IidNoise(kind="iid", sigma=10), bounds=(0, 100),
                           decimals=2)
    if re.search(r"(_count|_cnt|_total|_num|count)$", low) or _INT_TYPES.match(typ):
        guesses.append(f"{table}.{col}: integer count: Poisson around 10 per row")
        return Measurement(name=col, base=10, noise=PoissonNoise(kind="poisson"), bounds=(0, None))
    guesses.append(f"{table}.{col}: numeric gauge: level 100, noise sd 10")
    return Measurement(name=col, base=100, noise=IidNoise(kind="iid", sigma=10), decimals=3)


def _attribute(col: str, typ: str, guesses: list[str], table: str) -> Attribute:
    if _BOOL_TYPES.match(typ):
        guesses.append(f"{table}.{col}: boolean attribute, true/false equally likely")
        return Attribute(name=col, dist=Categorical(kind="categorical", values={"true": 0.5, "false": 0.5}))
    if _INT_TYPES.match(typ):
        guesses.append(f"{table}.{col}: integer attribute uniform 0-100")
        return Attribute(name=col, dist=IntegerRange(kind="integer", low=0, high=100))
    if _NUM_TYPES.match(typ):
        guesses.append(f"{table}.{col}: numeric attribute normal(100, 15)")
        return Attribute(name=col, dist=Normal(kind="normal", mean=100, std=15, decimals=2))
    labels = {f"{col}_{k}": w for k, w in zip("abc", (0.5, 0.3, 0.2), strict=True)}
    guesses.append(f"{table}.{col}: text attribute with three placeholder labels ({', '.join(labels)})")
    return Attribute(name=col, dist=Categorical(kind="categorical", values=labels))


def infer_from_ddl(path: str | Path, *, name: str = "inferred", seed: int = 0) -> tuple[Spec, list[str]]:
    """A spec from DDL alone and the list of guesses it rests on. Tables with a timestamp column emit
    periodic rows every 15 minutes; tables without one are static dimension tables."""
    p = Path(path)
    if not p.is_file():
        raise InferError(str(p), "DDL file not found; give a .sql file with CREATE TABLE statements")
    tables = parse_ddl(p.read_text(encoding="utf-8", errors="replace"), str(p))
    known = {t["name"] for t in tables}
    guesses: list[str] = []
    entities = []
    for t in tables:
        time = next((c for c, typ in t["columns"] if _TIME_TYPES.match(typ)), None)
        key = ([c for c in t["pk"] if c != time] or [c for c, _ in t["columns"] if re.search(r"(^id$|_id$)", c, re.I) and c != time][:1]
               or [f"{t['name']}_id"])
        fk_cols = {cols[0]: parent for cols, parent, _ in t["fks"] if parent in known and parent != t["name"]}
        attrs, ms = [], []
        for col, typ in t["columns"]:
            if col in (time, key[0]):
                continue
            if col in fk_cols:
                attrs.append(Attribute(name=col, dist=ForeignKey(kind="foreign_key", entity=fk_cols[col])))
            elif col in key or _BOOL_TYPES.match(typ) or not (_INT_TYPES.match(typ) or _NUM_TYPES.match(typ)) or not time:
                attrs.append(_attribute(col, typ, guesses, t["name"]))
            else:
                ms.append(_measurement(col, typ, guesses, t["name"]))
        count = 20 if fk_cols else 10
        guesses.append(f"{t['name']}: {count} entities, id format '{key[0].upper()}_{{i}}'"
                       + (f", a row every 15m in '{time}'" if time else " (no timestamp column: a dimension table)"))
        em = Emission(kind="periodic", cadence="15m", timestamp_column=time) if time else None
        entities.append(EntityType(name=t["name"], table=t["name"], id=IdSpec(column=key[0], format=f"{key[0].upper()}_{{i}}"),
                                   count=count, attributes=attrs, emission=em, measurements=ms if time else []))
    entities = _fold_metric_tables(entities, tables, guesses)
    # named from the id column as on the sample path ("device", not "links"); a clash keeps the table's name
    entities = rename_entities(entities, {e.name: [e.id.column] for e in entities})
    return Spec(name=name, description=f"Drafted by chronoeval infer from the DDL in {p.name} (defaults, no data).",
                seed=seed, horizon="3d", entities=entities), guesses


def _fold_metric_tables(entities: list[EntityType], tables: list[dict], guesses: list[str]) -> list[EntityType]:
    """A metric table keyed by a dimension table's id (``link_metrics.device_id -> links``) is the same
    entity type: the dimension becomes its static table (attributes ``emit: static``)."""
    by = {e.name: e for e in entities}
    for t in tables:
        e = by.get(t["name"])
        if e is None or e.emission is None:
            continue
        for cols, parent, _ in t["fks"]:
            dim = by.get(parent)
            if cols[0] == e.id.column and dim is not None and dim.emission is None and dim.id.column == e.id.column:
                attrs = [a.model_copy(update={"emit": "static"}) for a in dim.attributes]
                by[parent] = dim.model_copy(update={
                    "table": e.table, "static_table": dim.table_name, "emission": e.emission,
                    "measurements": e.measurements, "attributes": attrs + e.attributes})
                del by[t["name"]]
                guesses.append(f"{t['name']} holds the metrics of {parent} (same key {e.id.column}): one entity type "
                               f"with {parent} as its static table")
                break
    return [by[e.name] for e in entities if e.name in by]
