"""Apply an LLM's domain advice to a composed spec (dict form): realistic levels, units and bounds
for measurements, and an incident plan. Pure functions; the caller validates the result, and an
invalid result is sent back to the LLM with the validation errors."""

from __future__ import annotations

import copy
from typing import Any

from tools.describe.refine import incident_id
from tools.patterns.registry import get_kind


def apply_measurement_advice(spec: dict[str, Any], advice: list[dict[str, Any]]) -> dict[str, Any]:
    """A copy of ``spec`` whose measurements take the advised unit, level, bounds and integer-ness
    (noise and state effects are rescaled with the level)."""
    out = copy.deepcopy(spec)
    by_name = {a["name"]: a for a in advice}
    for e in out["entities"]:
        for m in e.get("measurements", []):
            a = by_name.get(m["name"])
            if a is None:
                continue
            old = float(m.get("base", 0.0)) or 1.0
            new = float(a["typical"])
            if a.get("unit"):
                m["unit"] = a["unit"]
            m["base"] = new
            if a.get("integer"):
                m.update(integer=True, noise={"kind": "poisson"}, bounds=[max(0.0, a.get("low") or 0.0), a.get("high")])
                m.pop("decimals", None)
                m["base"] = max(new, 0.0)
            else:
                m["integer"] = False
                sigma = abs(new) * 0.03 if m.get("noise", {}).get("kind") != "ar" else \
                    abs(m["noise"].get("sigma", 0.0) * new / old) or abs(new) * 0.03
                m["noise"] = {"kind": "ar", "phi": m.get("noise", {}).get("phi", [0.7]), "sigma": round(sigma or 0.1, 6)}
                m["bounds"] = [a.get("low"), a.get("high")]
                m.setdefault("decimals", 2)
            for eff in m.get("states", {}).values():
                if "shift" in eff:
                    eff["shift"] = round(eff["shift"] * new / old, 6)
            for season in m.get("seasonality", []):
                if season.get("mode", "additive") == "additive":
                    season["amplitude"] = round(season["amplitude"] * abs(new / old), 6)
    return out


def apply_incident_plan(spec: dict[str, Any], plan: list[dict[str, Any]], days: int) -> dict[str, Any]:
    """A copy of ``spec`` whose incidents are the plan's (unknown kinds and keys are left out)."""
    out = copy.deepcopy(spec)
    e = out["entities"][0]
    keys = [m["name"] for m in e.get("measurements", [])]
    out["incidents"] = []
    for idea in plan:
        kind, key = idea["kind"], idea.get("key")
        placement = getattr(get_kind(kind), "placement", None)  # what a writer gives it: effects, keys, rows
        if placement not in ("effects", "keys", "rows") or (placement != "rows" and key not in keys):
            continue
        inc: dict[str, Any] = {
            "kind": kind, "id": incident_id(out, kind), "description": f"{kind.replace('_', ' ')} on {key or 'rows'}",
            "target": {"entity": e["name"], "random": max(1, min(int(idea.get("entities", 3)), int(e["count"]) // 4 or 1))},
            "window": {"start": f"day {min(max(1, int(idea.get('day', 2))), days)} {int(idea.get('start_hour', 10)):02d}:00",
                       "duration": f"{int(idea.get('hours', 3))}h"}}
        if placement == "effects":
            inc["effects"] = {key: "-8sigma" if get_kind(kind).effect_way == "down" else "8sigma"}
        elif placement == "keys":
            inc["keys"] = [key]
        out["incidents"].append(inc)
    return out
