"""Names a fitted world keeps from its sample: the entity named from its id column (``Device_ID`` ->
``device``, not the table's ``iot_device_data``) and id formats per group (``TEMP_001``, ``HUM_001``
by device type) when the ids have no single prefix+number shape."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from tools.spec.distributions import ForeignKey
from tools.spec.names import IDENTIFIER, MAX_NAME_BYTES

_ID = re.compile(r"^(.+?)[_\s.-]*(id|key|code|no|number|uuid|guid)$", re.IGNORECASE)
_NUMBERED = re.compile(r"^(.*?)(\d+)$")
ID_SAMPLE = 10_000
_TABLE_NOISE = re.compile(r"(_(data|table|log|logs|records|rows))+$", re.IGNORECASE)


def _snake(text: str) -> str:
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    return re.sub(r"\W+", "_", text).strip("_").lower()


def entity_name(keys: list[str], table: str) -> str:
    """The entity's name from its id column(s) (``Cell_ID`` -> ``cell``, ``Device_ID + Interface_ID`` ->
    ``device_interface``), else the table's name without ``_data``-like suffixes."""
    stems = []
    for k in keys:
        m = _ID.match(k)
        if not m or not _snake(m.group(1)):
            stems = []
            break
        stems.append(_snake(m.group(1)))
    name = "_".join(stems) if stems else _snake(_TABLE_NOISE.sub("", table)) or _snake(table)
    ok = IDENTIFIER.match(name) and len(name.encode()) <= MAX_NAME_BYTES
    return name if ok else table


def rename_entities(entities: list, keys: dict[str, list[str]]) -> list:
    """The entity types renamed from their id columns (``keys``: the key columns per entity name; a clash
    keeps the old name), with foreign keys pointing at the new names."""
    wanted = {e.name: entity_name(keys.get(e.name, [e.id.column]), e.table_name) for e in entities}
    taken = list(wanted.values())
    new = {old: (n if taken.count(n) == 1 else old) for old, n in wanted.items()}
    out = []
    for e in entities:
        attrs = [a.model_copy(update={"dist": a.dist.model_copy(update={"entity": new.get(a.dist.entity, a.dist.entity)})})
                 if isinstance(a.dist, ForeignKey) else a for a in e.attributes]
        out.append(e.model_copy(update={"name": new[e.name], "attributes": attrs}))
    return out


def group_id_formats(ids: np.ndarray, groups: dict[str, np.ndarray]) -> tuple[str, dict[str, str]] | None:
    """``(attribute, {label: format})`` when a label attribute splits the ids into groups that each have
    one prefix+number shape (``TEMP_001`` for ``temperature``); None when no attribute does."""
    ids = np.asarray(ids, dtype=object).astype(str)
    parts = [_NUMBERED.match(v) for v in ids]
    if not all(parts):
        return None
    prefix = np.array([m.group(1) for m in parts], dtype=object)
    digits = np.array([m.group(2) for m in parts], dtype=object)
    for attr, labels in groups.items():
        labels = np.asarray(labels).astype(str)
        frame = pd.DataFrame({"label": labels, "prefix": prefix})
        per = frame.groupby("label")["prefix"].nunique()
        if len(per) < 2 or (per != 1).any() or frame.groupby("prefix")["label"].nunique().max() != 1:
            continue
        formats = {}
        for label in per.index:
            m = labels == label
            d = digits[m]
            width = len(d[0])
            padded = width > 1 and all(len(x) == width for x in d) and any(x.startswith("0") for x in d)
            p = str(prefix[m][0]).replace("{", "{{").replace("}", "}}")
            formats[str(label)] = f"{p}{{i:0{width}d}}" if padded else f"{p}{{i}}"
        return attr, formats
    return None


def id_format(values: pd.Series, entity: str) -> tuple[str, str | None]:
    """An id format reproducing the ids' shape (``RTR_001`` -> ``RTR_{i:03d}``) and a note if guessed."""
    vals = values.dropna().astype(str).unique()[:ID_SAMPLE]  # the shape, not every id, decides the format
    m = [_NUMBERED.match(v) for v in vals]
    prefixes = {x.group(1) for x in m if x}
    if all(m) and len(prefixes) == 1:
        digits = [x.group(2) for x in m]
        width = len(digits[0])
        padded = width > 1 and all(len(d) == width for d in digits) and any(d.startswith("0") for d in digits)
        prefix = next(iter(prefixes)).replace("{", "{{").replace("}", "}}")
        return (f"{prefix}{{i:0{width}d}}" if padded else f"{prefix}{{i}}"), None
    guess = re.sub(r"\W+", "_", entity).upper() + "_{i}"
    return guess, f"ids have no single prefix+number shape (e.g. {', '.join(sorted(vals)[:3])}); format '{guess}' is a guess"
