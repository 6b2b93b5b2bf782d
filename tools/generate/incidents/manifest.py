"""incidents.json: the ground-truth incident manifest (never shown to agents-under-test)."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import TYPE_CHECKING

from tools.patterns.registry import get_kind

if TYPE_CHECKING:  # annotations only: the generator imports this module, and inject imports the generator
    from tools.generate.incidents.inject import Injector
    from tools.generate.incidents.resolve import ResolvedIncident
    from tools.spec.model import Spec


def _signed(inc: ResolvedIncident, key: str) -> str:
    """The kind's signature direction, else the sign of the effect on ``key``."""
    kind = get_kind(inc.kind)
    if kind is not None and kind.direction is not None:
        return kind.direction
    return "up" if inc.effects[key].value >= 0 else "down"


def derived_keys(e, keys: list[str]) -> list[str]:
    """Visible measurements computed (transitively) by formula from ``keys``."""
    from tools.spec.formula import formula_names

    moved, out, changed = set(keys), [], True
    while changed:
        changed = False
        for m in e.measurements:
            if m.formula and m.name not in moved and formula_names(m.formula) & moved:
                moved.add(m.name)
                changed = True
                if not m.hidden:
                    out.append(m.name)
    return out


def incident_records(spec: Spec, incidents: list[ResolvedIncident], ids: dict[str, list[str]],
                     injector: Injector | None) -> list[dict]:
    """One JSON-ready record per resolved incident (cascade levels included, root first).

    ``entities`` (named by ``ids``: an id, or a composite key's label ``RTR_001/eth2`` when the record
    has ``key_parts``, the other key columns after ``id_column``) are the targets that have rows inside the window (a session that never overlapped
    it was not affected), ``targets`` every entity the incident was aimed at; ``keys`` the visible
    injected columns (or, when only hidden inputs were injected, the visible columns derived from
    them); ``derived_keys`` the visible columns computed from the injected ones by formula (they move
    as their formula says); ``signature[key].mean_delta`` is what this incident changed in that key,
    after bounds and rounding.
    """
    t0 = spec.start_dt
    out = []
    for inc in incidents:
        e = spec.entity(inc.entity_type)
        hidden = {m.name for m in e.measurements if m.hidden}
        derived = derived_keys(e, inc.keys)
        signature = {}
        for key in inc.keys:
            if key in hidden:
                continue
            real = injector.realized.get((inc.id, key)) if injector else None
            signature[key] = {"direction": _signed(inc, key),
                              "mean_delta": (real[0] / real[1]) if real and real[1] else None,
                              "rows": real[2] if real else 0}
        visible = [k for k in inc.keys if k not in hidden]
        if not visible:  # only hidden inputs were injected: the derived columns are what moves
            for key in derived:
                signature[key] = {"direction": "derived", "mean_delta": None, "rows": None}
        touched = injector.touched.get(inc.id) if injector else None
        entities = sorted(touched) if touched is not None else inc.entities.tolist()
        model = inc.model.model_dump(mode="json", exclude={"target", "window", "id", "kind", "description"}) \
            if hasattr(inc.model, "model_dump") else {}
        rec = {
            "id": inc.id, "kind": inc.kind, "cascade": inc.cascade, "root": inc.root, "level": inc.level,
            "children": inc.children, "entity_type": inc.entity_type, "table": e.table_name,
            "id_column": e.id.column, **({"key_parts": list(e.key_parts)} if e.key_parts else {}),
            "timestamp_column": e.emission.timestamp_column if e.emission else None,
            "entities": [ids[inc.entity_type][i] for i in entities],
            "targets": [ids[inc.entity_type][i] for i in inc.entities.tolist()],
            "keys": visible or derived,
            "injected_keys": inc.keys,
            "derived_keys": derived,
            "start": (t0 + timedelta(seconds=inc.start)).astimezone(UTC).isoformat(),
            "end": (t0 + timedelta(seconds=inc.end)).astimezone(UTC).isoformat(),
            "lag_seconds": inc.lag,
            "magnitude": {k: str(v.value) + {"units": "", "sigma": "sigma", "relative": " (relative)"}[v.unit]
                          for k, v in inc.effects.items()},
            "signature": signature,
            "params": model,
            "description": getattr(inc.model, "description", ""),
        }
        if get_kind(inc.kind).removes_rows:
            rec["rows_removed"] = injector.dropped.get(inc.id, 0) if injector else 0
        out.append(rec)
    return out


def manifest(spec: Spec, seed: int, records: list[dict]) -> dict:
    """The whole incidents.json document."""
    return {"spec": spec.name, "seed": seed, "start": spec.start_dt.isoformat(), "incidents": records}
