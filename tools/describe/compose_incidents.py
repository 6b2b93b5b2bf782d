"""Default and requested incidents from the field's incident archetypes, always in the direction that
means worse for the measurement (SpO2 down, latency up, fare up under surge pricing).

Reporters get a degradation of their health metric and an outage (plus the kinds the text asks
for); lifecycles get a surge of arrivals and a failure storm (a behaviour shift into their failure
or cancellation states).
"""

from __future__ import annotations

import math
from typing import Any

from tools.describe.catalog_model import Catalog, MeasurementArchetype
from tools.patterns.registry import get_kind


def _moves_values(kind: str) -> bool:
    """Kinds a catalog incident can name for a measurement: effects that move its level."""
    k = get_kind(kind)
    return k is not None and k.placement == "effects" and k.effect_way != "spread"

HEALTH_CLASSES = ("vital", "latency", "error", "condition", "throughput", "signal", "consumption", "environment",
                  "storage", "count", "position", "amount", "duration", "score")


def room(key: dict, up: bool, wide: bool = True) -> float:
    """How many of its own spreads a measurement can move the given way before its bounds, counted from
    its most extreme state level: an incident larger than that would pile values up at the bound.
    ``wide``: spreads of the entity's whole std, states included (what "Nsigma" means to the injector);
    else of its noise alone."""
    noise = key.get("noise", {})
    base = float(key.get("base", 0.0))
    if noise.get("kind") == "ar":
        spread = noise["sigma"] / math.sqrt(max(1e-9, 1 - sum(p * p for p in noise.get("phi", [0.0]))))
    elif noise.get("kind") == "iid":
        spread = noise["sigma"]
    elif noise.get("kind") == "poisson":
        spread = math.sqrt(max(base, 1.0))
    else:
        spread = max(abs(base) * 0.05, 1e-9)
    levels = [base] + [base * st.get("scale", 1.0) + st.get("shift", 0.0) for st in key.get("states", {}).values()]
    lo, hi = (key.get("bounds") or [None, None])
    edge = hi if up else lo
    start = max(levels) if up else base  # states stack up to the top; a down state already sits at the bottom
    if edge is None and "plausible" not in key and spread > 0:
        edge = start + 12 * spread if up else start - 12 * spread  # no bound known: stay near what was seen
    if edge is None or spread <= 0:
        return math.inf
    # "Nsigma" is read against the entity's own std, states included: a state far from the base widens it
    mean = sum(levels) / len(levels)
    scale = math.sqrt(spread ** 2 + sum((x - mean) ** 2 for x in levels) / len(levels)) if wide else spread
    return (edge - start) / scale if up else (start - edge) / scale


def noise_spread(key: dict) -> float:
    """The measurement's noise std (its spread without states)."""
    noise, base = key.get("noise", {}), float(key.get("base", 0.0))
    if noise.get("kind") == "ar":
        return noise["sigma"] / math.sqrt(max(1e-9, 1 - sum(p * p for p in noise.get("phi", [0.0]))))
    if noise.get("kind") == "iid":
        return noise["sigma"]
    if noise.get("kind") == "poisson":
        return math.sqrt(max(base, 1.0))
    return max(abs(base) * 0.05, 1e-9)


def _sized(key: dict, arch: MeasurementArchetype | None, wanted: float, up: bool | None = None) -> str | None:
    """The effect in spreads the worse way (or ``up``), shrunk to stay inside the bounds; None when even
    a detectable one (6 spreads) would not fit."""
    up = (arch is None or arch.worse == "up") if up is None else up
    size = min(wanted, 0.9 * room(key, up))
    if size >= 6.3:
        return f"{'+' if up else '-'}{round(size, 1):g}sigma"
    # states widen the entity's std: an effect that size would leave the bounds; in units of the noise it fits
    size = min(wanted, 0.9 * room(key, up, wide=False))
    if size < 6.3:
        return None
    units = f"{size * noise_spread(key):.6f}".rstrip("0").rstrip(".")  # a plain number: "1e+07" is no magnitude
    return f"{'+' if up else '-'}{units}"


def _pick(keys: list[dict], archs: dict[str, MeasurementArchetype], catalog: Catalog, field: str | None,
          avoid: set[str], need_room: bool = True) -> tuple[str, Any] | None:
    """The measurement a field's incident archetype names, else the first health-like one; for value
    incidents only measurements with room for a detectable change the worse way."""
    present = {k["name"] for k in keys if (not need_room or (
        (not k.get("integer") or k.get("noise", {}).get("kind") != "poisson")
        and _sized(k, archs.get(k["name"]), 8.0) is not None))}
    for inc in catalog.incidents:
        if field and inc.field != field or not _moves_values(inc.kind):
            continue
        for k in keys:
            a = archs.get(k["name"])
            if k["name"] in avoid or k["name"] not in present or a is None:
                continue
            if a.id in inc.measurements or a.klass in inc.classes:
                return k["name"], inc
    for cls in HEALTH_CLASSES:
        for k in keys:
            a = archs.get(k["name"])
            if k["name"] not in avoid and k["name"] in present and a is not None and a.klass == cls:
                return k["name"], None
    free = [k["name"] for k in keys if k["name"] not in avoid and k["name"] in present]
    return (free[0], None) if free else None


def reporter_incidents(entity: str, noun: str, count: int, keys: list[dict], archs: dict[str, MeasurementArchetype],
                       catalog: Catalog, field: str | None, horizon_days: int, asked: list[str],
                       decisions: list[str], asked_words: dict[str, str] | None = None) -> list[dict]:
    """A degradation of the health metric, an outage, and the asked kinds (or a stuck value and a
    spike by default) on distinct measurements; an asked kind goes on the measurement its words name
    ("a slow pressure drift" drifts the pressure)."""
    out: list[dict] = []
    day = lambda i: min(horizon_days, max(1, i))  # noqa: E731 - a clamp
    short = horizon_days < 1
    used: set[str] = set()
    pick = _pick(keys, archs, catalog, field, used)
    k_affected = max(1, min(4, count // 8))
    if pick:
        key, inc = pick
        used.add(key)
        name = inc.name if inc else f"{key.replace('_', ' ')} degradation"
        out.append({"kind": "kpi_degradation", "id": f"{key}_degradation",
                    "description": f"{name}: {k_affected} {noun} get worse on {key} for 4h"
                                   + (f" (catalog: {inc.id})" if inc else ""),
                    "target": {"entity": entity, "random": k_affected},
                    "window": {"start": f"day {day(horizon_days // 2 + 1)} 10:00", "duration": "4h"},
                    "ramp_in": "15m", "ramp_out": "15m",
                    "effects": {key: _sized(next(k for k in keys if k["name"] == key), archs.get(key),
                                            max(8.0, inc.magnitude_sigma if inc else 8.0))}})
        decisions.append(f"incident {key}_degradation: {'catalog ' + inc.id if inc else 'default'}, "
                         f"{key} moves the way that means worse ({(archs[key].worse if key in archs else 'up')})")
    n_out = max(1, min(5, count // 6))
    out.append({"kind": "data_outage", "id": f"{entity}_outage",
                "description": f"{n_out} {noun} stop reporting for 2 hours.",
                "target": {"entity": entity, "random": n_out},
                "window": {"start": f"day {day(max(1, horizon_days // 2))} 15:00", "duration": "2h"}})
    extra = [k for k in asked if k not in ("data_outage", "kpi_degradation")] or (["flatline", "spike"] if not short else [])
    if not [k for k in asked if k not in ("data_outage", "kpi_degradation")]:
        decisions.append(f"incidents {', '.join(extra)}: added by default (more incident kinds for the suite)")
    for kind in extra:
        words = (asked_words or {}).get(kind, "").lower()
        named = next((k["name"] for k in keys if k["name"] not in used and k["name"].replace("_", " ") in words), None)
        k = get_kind(kind)
        placeable = k is not None and k.placeable
        pick = (named, None) if named else _pick(keys, archs, catalog, None, used,
                                                 need_room=not (placeable and k.placement == "keys"))
        if pick is None or not placeable:
            decisions.append(f"incident {kind}: asked for, but no further measurement or a kind reporters cannot "
                             "show; skipped")
            continue
        key = pick[0]
        used.add(key)
        base = {"id": f"{key}_{kind}", "target": {"entity": entity, "random": 1},
                "window": {"start": f"day {day(horizon_days - 1 if horizon_days > 2 else horizon_days)} 06:00",
                           "duration": "8h"}}
        if k.placement == "keys":
            out.append({"kind": kind, **base, "keys": [key],
                        "description": f"one {entity.replace('_', ' ')}'s {key} is "
                                       f"{'stuck' if kind == 'flatline' else 'missing'}."})
        else:
            a = archs.get(key)
            spec = next(k for k in keys if k["name"] == key)
            sig = _sized(spec, a, 10.0, up=None if k.effect_way == "worse" else False)
            if k.effect_way == "spread":
                sig = "10sigma"
            if sig is None:
                decisions.append(f"incident {kind} on {key}: no room for a detectable {kind} within its bounds; skipped")
                continue
            out.append({"kind": kind, **base, "effects": {key: sig},
                        "description": f"one {entity.replace('_', ' ')}'s {key} shows a {kind.replace('_', ' ')}."})
    return out


def failure_transitions(machine: dict[str, Any], roles: dict[str, str]) -> dict[str, dict[str, float]]:
    """Transitions that lead every step to the failure or cancellation states far more often (60%);
    empty when the lifecycle has no such state."""
    bad = [s for s in machine.get("terminal", []) if roles.get(s) in ("failure", "cancelled")]
    steps = [s for s in machine.get("transitions", {}) if bad]
    trans = {s: {b: round(0.6 / len(bad), 4) for b in bad} for s in steps}
    for s in steps:
        keep = [t for t in machine["transitions"][s] if t not in bad]
        if keep:
            trans[s].update({t: round(0.4 / len(keep), 4) for t in keep})
        else:
            trans[s] = {b: round(1 / len(bad), 4) for b in bad}
        last = list(trans[s])[-1]
        trans[s][last] = round(1 - sum(v for t, v in trans[s].items() if t != last), 4)
    return trans


def lifecycle_incidents(entity: str, noun: str, machine: dict[str, Any], roles: dict[str, str],
                        horizon_days: int, decisions: list[str]) -> list[dict]:
    """A surge of arrivals and a failure storm (the steps lead to failure/cancellation far more often)."""
    day = max(1, horizon_days // 2 + (1 if horizon_days > 2 else 0))
    out = [{"kind": "flash_crowd", "id": f"{entity}_surge", "surge": "+300%",
            "description": f"a surge: four times the usual {noun} start for 2 hours.",
            "target": {"entity": entity}, "window": {"start": f"day {day} 17:00", "duration": "2h"}}]
    bad = [s for s in machine.get("terminal", []) if roles.get(s) in ("failure", "cancelled")]
    trans = failure_transitions(machine, roles)
    if trans:
        out.append({"kind": "behavior_shift", "id": f"{entity}_failure_storm",
                    "description": f"a failure storm: most {noun} end {' or '.join(bad)} for 4 hours.",
                    "target": {"entity": entity}, "window": {"start": f"day {max(1, horizon_days - 1)} 09:00",
                                                             "duration": "4h"},
                    "transitions": trans})
    decisions.append(f"incidents on {noun}: a surge of arrivals"
                     + (f" and a failure storm into {', '.join(bad)}" if bad else "") + " (lifecycle defaults)")
    return out
