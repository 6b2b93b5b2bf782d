"""Turn a ``DomainDraft`` into a valid spec: names from the draft, models from ``profiles``.

What the draft leaves open gets a default that fits the domain (and the decision list says so):
states (a health cycle), attributes to slice by, the count (sized so the world stays small enough
to build in seconds), the cadence, the horizon, and incidents that suit the measurements (a
degradation of the health metric and an outage, plus whatever kinds the text asked for).
"""

from __future__ import annotations

import re
from typing import Any

from tools.describe.draft import DomainDraft
from tools.describe.extract import plural
from tools.describe.profiles import (
    DEGRADATION,
    DWELL,
    STATE_CLASSES,
    TRANSITION_WEIGHTS,
    measurement_profile,
    state_class,
)
from tools.spec.durations import format_duration, parse_duration
from tools.spec.model import Spec

SOFTWARE = re.compile(r"pod|service|api|server|database|db|host|container|app|endpoint|region|cluster|queue|job")
TARGET_ROWS = 300_000  # a default-count world is about this many rows
DEFAULT_MEASUREMENTS = {"software": ["request_rate", "error_rate", "p95_latency", "cpu_usage"],
                        "hardware": ["temperature", "vibration", "power_draw"]}
DEFAULT_STATES = {"software": ["healthy", "degraded", "down"],
                  "hardware": ["operational", "warning", "fault", "maintenance"]}


def _kind_of(draft: DomainDraft) -> str:
    return "software" if SOFTWARE.search(draft.entity.name) or draft.nearest_pack == "observability" else "hardware"


def _default_attributes(kind: str, entity: str) -> list[dict]:
    if entity == "region":
        return [{"name": "tier", "emit": "static", "dist": {"kind": "categorical",
                                                            "values": {"primary": 0.5, "secondary": 0.3, "edge": 0.2}}}]
    if kind == "software":
        return [{"name": "version", "emit": "static",
                 "dist": {"kind": "categorical", "values": {"v1.4.2": 0.5, "v1.5.0": 0.35, "v1.6.0-rc": 0.15}}},
                {"name": "region", "emit": "static",
                 "dist": {"kind": "categorical", "values": {"us-east": 0.4, "eu-west": 0.35, "ap-south": 0.25}}}]
    prefix = entity.split("_")[-1][:3].upper()
    return [{"name": "model", "emit": "static",
             "dist": {"kind": "categorical", "values": {f"{prefix}-100": 0.6, f"{prefix}-200": 0.4}}},
            {"name": "site", "emit": "static",
             "dist": {"kind": "categorical", "values": {"north": 0.3, "south": 0.3, "east": 0.2, "west": 0.2}}}]


def _attributes(draft: DomainDraft, kind: str, decisions: list[str]) -> list[dict]:
    out = []
    for a in draft.entity.attributes:
        values = a.values or [f"{a.name}_{c}" for c in "abc"]
        w = round(1 / len(values), 6)
        weights = {v: w for v in values}
        weights[values[-1]] = round(1 - w * (len(values) - 1), 6)
        out.append({"name": a.name, "emit": "static", "dist": {"kind": "categorical", "values": weights}})
    if not out:
        out = _default_attributes(kind, draft.entity.name)
        decisions.append(f"attributes {', '.join(a['name'] for a in out)}: defaults (the text names none)")
    return out


def _state_machine(states: list[str], scale: float) -> dict[str, Any]:
    classes = {s: state_class(s, i) for i, s in enumerate(states)}
    initial = next((s for s in states if classes[s] == "active"), states[0])
    transitions = {}
    for s in states:
        weights = TRANSITION_WEIGHTS[classes[s]]
        row: dict[str, float] = {}
        for cls in STATE_CLASSES:
            targets = [t for t in states if t != s and classes[t] == cls]
            for t in targets:
                row[t] = weights.get(cls, 0.0) / len(targets)
        row = {t: w for t, w in row.items() if w > 0} or {t: 1.0 for t in states if t != s}
        total = sum(row.values())
        probs = {t: round(w / total, 4) for t, w in row.items()}
        last = list(probs)[-1]
        probs[last] = round(1 - sum(v for t, v in probs.items() if t != last), 4)
        transitions[s] = probs
    defs = {}
    for s in states:
        dwell = dict(DWELL[classes[s]])
        for k in ("mean", "median"):
            if k in dwell:
                dwell[k] = format_duration(parse_duration(dwell[k]) * scale)
        defs[s] = {"description": f"{classes[s]} state", "dwell": dwell}
    return {"column": "status", "initial": initial, "states": defs, "transitions": transitions}, classes


def _measurement(name: str, words: str, classes: dict[str, str]) -> dict[str, Any]:
    p = measurement_profile(name)
    m: dict[str, Any] = {"name": name, "description": f"{words or name} ({p.kind})", "base": p.base}
    if p.unit:
        m["unit"] = p.unit
    if p.integer:
        m["noise"] = {"kind": "poisson"}
        m["integer"] = True
    else:
        m["noise"] = {"kind": "ar", "phi": [0.7], "sigma": round(p.sigma, 4)}
    if p.trend:
        m["trend"] = p.trend
    if p.daily:
        mult = p.kind in ("rate", "output", "counter", "latency")
        m["seasonality"] = [{"period": "1d", "amplitude": p.daily, "peak": "14h",
                             "mode": "multiplicative" if mult else "additive"}]
    if p.bounds != (None, None):
        m["bounds"] = list(p.bounds)
    if p.decimals is not None:
        m["decimals"] = p.decimals
    effects = {s: p.effects[c] for s, c in classes.items() if c in p.effects}
    if effects:
        m["states"] = effects
    return m


def _incidents(draft: DomainDraft, entity: str, count: int, keys: list[dict], horizon_s: float,
               decisions: list[str]) -> list[dict]:
    days = max(1, int(horizon_s // 86400))
    day = lambda i: min(days, max(1, i))  # noqa: E731 - a clamp, used three times below
    profiles = {k["name"]: measurement_profile(k["name"]) for k in keys}
    hinted = " ".join(v for k, v in draft.evidence.items() if k.startswith("incident ")).lower()
    named = [k for k in profiles if k.replace("_", " ") in hinted]  # keys the user tied to an incident
    health = next((k for kind in ("latency", "error", "gauge", "usage", "output", "rate", "failures", "counter", "level")
                   for k, p in profiles.items() if p.kind == kind and k not in named), keys[0]["name"])
    k_affected = max(1, min(4, count // 8))
    hours = "4h" if horizon_s >= 86400 else "1h"
    start = lambda d, hh: f"day {day(d)} {hh}" if horizon_s >= 86400 else f"{int(horizon_s * hh_frac(hh)) // 60}m"  # noqa: E731
    effect = DEGRADATION[profiles[health].kind]
    out = [{"kind": "kpi_degradation", "id": f"{health}_degradation",
            "description": f"{k_affected} {plural(entity).replace('_', ' ')} degrade: {health} {effect} for {hours}.",
            "target": {"entity": entity, "random": k_affected}, "window": {"start": start(days // 2 + 1, "10:00"),
                                                                         "duration": hours},
            "ramp_in": "15m", "ramp_out": "15m", "effects": {health: effect}}]
    n_out = max(1, min(5, count // 6))
    out.append({"kind": "data_outage", "id": f"{entity}_outage",
                "description": f"{n_out} {plural(entity).replace('_', ' ')} stop reporting for a while.",
                "target": {"entity": entity, "random": n_out},
                "window": {"start": start(max(1, days // 2), "15:00"), "duration": "2h" if horizon_s >= 86400 else "20m"}})
    others = [k for k in profiles if k != health]
    asked = [k for k in draft.incident_hints if k not in ("data_outage", "kpi_degradation")]
    if not asked and horizon_s >= 86400:  # two more kinds, so the suite has enough incident questions
        asked = ["flatline", "spike"] if _kind_of(draft) == "hardware" else ["spike", "level_shift"]
        decisions.append(f"incidents {', '.join(asked)}: added by default (more incident kinds for the suite)")
    for kind in asked:
        words = draft.evidence.get(f"incident {kind}", "").lower().replace(" ", "_")
        named = [k for k in others if k in words or k.replace("_", " ") in words.replace("_", " ")]
        fitting = ("gauge", "usage", "output", "rate") + (("failures", "counter") if kind == "spike" else ())
        key = next(iter(named), None) or next((k for k in others if profiles[k].kind in fitting), None)
        if key is None or horizon_s < 86400:
            decisions.append(f"incident {kind}: asked for, but no suitable measurement or too short a horizon; skipped")
            continue
        d = day(days - 1 if days > 2 else days)
        base = {"id": f"{key}_{kind}", "target": {"entity": entity, "random": 1},
                "window": {"start": f"day {d} 06:00", "duration": "8h"}}
        if kind in ("spike", "slow_drift", "level_shift", "dip", "variance_burst"):
            out.append({"kind": kind, **base, "effects": {key: "10sigma"},
                        "description": f"one {entity}'s {key} shows a {kind.replace('_', ' ')}."})
        elif kind in ("flatline", "null_burst"):
            out.append({"kind": kind, **base, "keys": [key], "description": f"one {entity}'s {key} is stuck."
                        if kind == "flatline" else f"one {entity}'s {key} readings go missing."})
        else:
            decisions.append(f"incident {kind}: needs related entity types or arrivals, which this domain does not "
                             "have; skipped")
            continue
        others.remove(key)
    return out


def hh_frac(hh: str) -> float:
    """'10:00' → the fraction of a day (used to place incidents in horizons shorter than a day)."""
    h, m = hh.split(":")
    return (int(h) + int(m) / 60) / 24


def compose_spec(draft: DomainDraft, seed: int = 0) -> tuple[Spec, list[str]]:
    """A valid spec from the draft, and the decisions taken where the draft was silent."""
    decisions: list[str] = []
    kind = _kind_of(draft)
    e = draft.entity
    cadence = e.cadence or ("5m" if kind == "software" else "15m")
    if not e.cadence:
        decisions.append(f"cadence {cadence}: default for {kind} telemetry (the text states none)")
    horizon = draft.horizon or "7d"
    if not draft.horizon:
        decisions.append("horizon 7d: default (the text states none)")
    horizon_s, cadence_s = parse_duration(horizon), parse_duration(cadence)
    steps = max(1, int(horizon_s // cadence_s))
    count = e.count or max(4, min(6 if e.name == "region" else 40, TARGET_ROWS // steps))
    if not e.count:
        decisions.append(f"count {count}: default sized to about {TARGET_ROWS:,} rows (the text states none)")
    states = e.states if len(e.states) >= 2 else DEFAULT_STATES[kind]
    if len(e.states) < 2:
        decisions.append(f"states {', '.join(states)}: default {kind} health cycle (the text names none)")
    names = [(m.name, m.words) for m in e.measurements] or [(n, "") for n in DEFAULT_MEASUREMENTS[kind]]
    if not e.measurements:
        decisions.append(f"measurements {', '.join(n for n, _ in names)}: defaults (the text names none)")
    machine, classes = _state_machine(states, max(1.0, cadence_s / 900))
    keys = [_measurement(n, w, classes) for n, w in names if n not in (e.name, "status")]
    table = f"{draft.name}_metrics" if e.name == "region" and draft.name != "region" else f"{e.name}_metrics"
    entity = {
        "name": e.name, "description": f"A {e.name.replace('_', ' ')} (from the description).",
        "table": table, "static_table": e.plural,
        "id": {"column": f"{e.name}_id", "format": e.name.upper() + "_{i:03d}"}, "count": count,
        "attributes": _attributes(draft, kind, decisions), "states": machine,
        "emission": {"kind": "on_transition"} if e.event_driven else {"kind": "periodic", "cadence": cadence},
        "measurements": keys,
    }
    spec = {
        "name": draft.name, "description": draft.description, "seed": seed, "start": "2026-01-01T00:00:00Z",
        "horizon": horizon, "entities": [entity],
        "incidents": _incidents(draft, e.name, count, keys, horizon_s, decisions),
    }
    return Spec.model_validate(spec), decisions
