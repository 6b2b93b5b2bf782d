"""What each typed chat operation does to the spec (its dict form): pure functions that change the dict
in place and return the sentence saying what changed. Anything the operation leaves unstated keeps its
current value; a default (an incident's window or targets when none is given) is said in the sentence so
the preview shows it. A change that cannot be made raises ``RefineError`` naming what to say instead.
"""

from __future__ import annotations

import re
from typing import Any

from tools.chat.ops import (
    AddIncident,
    CascadeIncident,
    EditIncident,
    EditPersona,
    MoveIncident,
    RemoveIncident,
    RemovePersona,
    ScaleEntities,
    SetCadence,
    SetHorizon,
)
from tools.common.durations import parse_duration
from tools.describe.apply import RefineError, _key_for, target_words, window_words
from tools.describe.refine import incident_id
from tools.patterns.registry import get_kind

HARDER_MIX = {"stateless": 0.15, "stateful": 0.45, "incident": 0.4}


def _entity(spec: dict, name: str | None, measurement: str | None = None) -> dict:
    ents = spec.get("entities", [])
    if name:
        for e in ents:
            if e["name"] == name:
                return e
        raise RefineError(f"no entity type is called '{name}'; entity types: {', '.join(e['name'] for e in ents)}")
    if measurement:
        for e in ents:
            if any(m["name"] == measurement for m in e.get("measurements", [])):
                return e
    return next((e for e in ents if e.get("measurements")), ents[0])


def _incident(spec: dict, ident: str) -> dict:
    for inc in spec.get("incidents", []):
        if inc.get("id") == ident:
            return inc
    raise RefineError(f"no incident is called '{ident}'; incidents: "
                      f"{', '.join(i.get('id', '?') for i in spec.get('incidents', [])) or 'none'}")


def relative_magnitude(text: str) -> str:
    """A chat magnitude as an effect: '+50%', '-40%', 'x2' (+100%), 'x0.5' (-50%), 'to 0' (-100%), '+8'."""
    t = text.strip().lower().replace(" ", "")
    if m := re.fullmatch(r"x(\d+(?:\.\d+)?)", t):
        return f"{(float(m.group(1)) - 1) * 100:+g}%"
    if t in ("to0", "tozero"):
        return "-100%"
    if re.fullmatch(r"[+-]?\d+(?:\.\d+)?(?:%|sigma)?", t):
        return t if t[0] in "+-" else f"+{t}"
    raise RefineError(f"cannot size an incident by '{text}'; say '+50%', '-40%', 'x2', 'to 0' or a change in the "
                      "measurement's unit ('+8')")


def _target(spec: dict, ent: dict, ids, count, where) -> dict[str, Any]:
    n = int(ent.get("count", 0))
    if ids:
        return {"entity": ent["name"], "ids": list(ids)}
    if count and count > n:
        raise RefineError(f"there are only {n} {ent['name']} entities; ask for at most that many")
    target: dict[str, Any] = {"entity": ent["name"]}
    if where:
        target["where"] = [{"attribute": a, "equals": v} for a, v in where.items()]
    if count or not where:
        target["random"] = count or max(1, min(3, n // 10 or 1))
    return target


def add_incident(spec: dict, op: AddIncident, days: int) -> str:
    """Add the incident the operation describes (unstated: 2 h from day ⌈days/2⌉ 10:00, a few entities)."""
    kind = op.kind
    placement = getattr(get_kind(kind), "placement", "effects")
    ent = _entity(spec, op.entity, op.measurement)
    if placement == "arrivals" and not ent.get("arrival"):
        # a surge of arrivals happens to what arrives ("premium users" → their sessions), filtered the same way
        arriving = next((e for e in spec.get("entities", []) if e.get("arrival")), None)
        attrs = {a["name"] for a in (arriving or {}).get("attributes", [])}
        if arriving is not None and not op.ids and set(op.where or {}) <= attrs:
            ent = arriving
    window = {"start": op.start or f"day {max(1, days // 2 + 1)} 10:00", "duration": op.duration or "2h"}
    inc: dict[str, Any] = {"kind": kind, "id": incident_id(spec, kind), "description": "added in chat",
                           "target": _target(spec, ent, op.ids, op.count, op.where), "window": window,
                           "compose": "add"}
    key = op.measurement or _key_for(ent, op.measurement or "", ("latency", "error", "gauge", "usage", "rate"))
    if placement == "arrivals":
        inc["surge"] = relative_magnitude(op.magnitude) if op.magnitude else "+200%"
        if not ent.get("arrival") and key:
            inc["keys"] = [key]
    elif placement == "keys":
        inc["keys"] = [key]
    elif placement != "rows":
        if key is None:
            raise RefineError(f"{ent['name']} has no measurement for a {kind.replace('_', ' ')}; try an outage")
        down = getattr(get_kind(kind), "effect_way", None) == "down"
        inc["effects"] = {key: relative_magnitude(op.magnitude) if op.magnitude else ("-8sigma" if down else "8sigma")}
    spec.setdefault("incidents", []).append(inc)
    return (f"added {kind.replace('_', ' ')} '{inc['id']}' on {target_words(inc['target'])}, {window_words(window)}"
            + (f", on {', '.join(inc['keys'])}" if inc.get("keys") else "")
            + (f", {', '.join(f'{k} {v}' for k, v in inc['effects'].items())}" if inc.get("effects") else ""))


def _scaled(duration: str, by: str) -> str:
    seconds = parse_duration(duration)
    new = seconds * float(by[1:]) if by.startswith("x") else seconds + (1 if by[0] == "+" else -1) * parse_duration(by[1:])
    if new <= 0:
        raise RefineError(f"that would make the incident last {new:g} s; it lasts {duration} now")
    return f"{int(new // 3600)}h" if new % 3600 == 0 else f"{int(new // 60)}m" if new % 60 == 0 else f"{int(new)}s"


def edit_incident(spec: dict, op: EditIncident) -> str:
    """Change the stated fields of an incident (the kind, targets, length, size or measurement)."""
    inc = _incident(spec, op.incident)
    root = inc["root"] if inc.get("kind") == "cascade" else inc
    said = []
    if op.duration or op.duration_by:
        old = root["window"].get("duration")
        if old is None:
            raise RefineError(f"'{op.incident}' has an end time, not a length; move its end instead")
        root["window"]["duration"] = op.duration or _scaled(old, op.duration_by)
        said.append(f"duration {old} → {root['window']['duration']}")
    if op.ids or op.count:
        ent = _entity(spec, root["target"]["entity"])
        old = target_words(root["target"])
        root["target"] = _target(spec, ent, op.ids, op.count, None)
        said.append(f"targets {old} → {target_words(root['target'])}")
    if op.kind and op.kind != root["kind"]:
        keep = {k: root[k] for k in ("id", "description", "target", "window", "compose") if k in root}
        spec["incidents"][spec["incidents"].index(inc)] = inc = {**keep, "kind": op.kind}
        key = op.measurement or next(iter(root.get("effects") or {}), None) or (root.get("keys") or [None])[0]
        add = AddIncident(kind=op.kind, entity=root["target"]["entity"], measurement=key, magnitude=op.magnitude)
        scratch: dict = {"entities": spec["entities"], "incidents": []}
        add_incident(scratch, add, 1)
        inc.update({k: v for k, v in scratch["incidents"][0].items() if k in ("effects", "keys", "surge")})
        said.append(f"kind {root['kind']} → {op.kind}")
        root = inc
    elif op.magnitude or op.measurement:
        if root.get("effects"):
            key = op.measurement or next(iter(root["effects"]))
            mag = relative_magnitude(op.magnitude) if op.magnitude else next(iter(root["effects"].values()))
            root["effects"] = {key: mag}
            said.append(f"{key} {mag}")
        elif op.magnitude and "surge" in root:
            root["surge"] = relative_magnitude(op.magnitude)
            said.append(f"surge {root['surge']}")
        elif op.measurement and "keys" in root:
            root["keys"] = [op.measurement]
            said.append(f"on {op.measurement}")
        else:
            raise RefineError(f"a {root['kind'].replace('_', ' ')} has no size to change")
    return f"changed '{op.incident}': " + "; ".join(said)


def move_incident(spec: dict, op: MoveIncident) -> str:
    """Move an incident's window to a new start, or by a shift."""
    inc = _incident(spec, op.incident)
    window = (inc["root"] if inc.get("kind") == "cascade" else inc)["window"]
    old = window["start"]
    if op.start:
        window["start"] = op.start
    else:
        m = re.fullmatch(r"day (\d+) (\d\d):(\d\d)", old)
        if not m:
            raise RefineError(f"'{op.incident}' starts at {old}; give the new start as 'day N HH:MM'")
        t = (int(m.group(1)) - 1) * 86400 + int(m.group(2)) * 3600 + int(m.group(3)) * 60
        t += (1 if op.shift[0] == "+" else -1) * parse_duration(op.shift[1:])
        if t < 0:
            raise RefineError(f"that would start '{op.incident}' before the data begins ({old} {op.shift})")
        window["start"] = f"day {int(t // 86400) + 1} {int(t % 86400 // 3600):02d}:{int(t % 3600 // 60):02d}"
    return f"moved '{op.incident}' from {old} to {window['start']}"


def cascade_incident(spec: dict, op: CascadeIncident, days: int) -> str:
    """Re-target an incident (or a new outage) at ``ids`` and cascade it to the ``to`` entities behind them."""
    from tools.describe.apply import make_cascade
    from tools.describe.refine import Refinement

    if op.incident is not None:
        _incident(spec, op.incident)
    return make_cascade(spec, Refinement(op="cascade", target_ids=op.ids, entity_word=op.to, topic=op.incident,
                                         text=f"cascade to {op.to} behind {', '.join(op.ids)}"), days)


def remove_incident(spec: dict, op: RemoveIncident) -> str:
    """Remove one incident."""
    inc = _incident(spec, op.incident)
    spec["incidents"].remove(inc)
    return f"removed {inc['kind'].replace('_', ' ')} '{inc['id']}'"


def edit_persona(spec: dict, op: EditPersona) -> str:
    """Change a persona's description or style."""
    p = next((p for p in spec.get("personas", []) if p["name"] == op.persona), None)
    if p is None:
        raise RefineError(f"no persona is called '{op.persona}'")
    for field in ("description", "style"):
        if getattr(op, field) is not None:
            p[field] = getattr(op, field)
    return f"changed persona '{op.persona}'"


def remove_persona(spec: dict, op: RemovePersona) -> str:
    """Remove a persona from the spec."""
    if not any(p["name"] == op.persona for p in spec.get("personas", [])):
        raise RefineError(f"no persona is called '{op.persona}'")
    spec["personas"] = [p for p in spec["personas"] if p["name"] != op.persona]
    return f"removed persona '{op.persona}'"


def scale_entities(spec: dict, op: ScaleEntities) -> str:
    """A new entity count."""
    e = _entity(spec, op.entity)
    old = int(e.get("count", 1))
    e["count"] = op.count or max(1, round(old * op.factor))
    return f"{e['name']} count {old} → {e['count']}"


def set_horizon(spec: dict, op: SetHorizon) -> str:
    """A new horizon."""
    old, spec["horizon"] = spec.get("horizon"), op.horizon
    return f"horizon {old} → {op.horizon}"


def set_cadence(spec: dict, op: SetCadence) -> str:
    """A new cadence for one (or every) periodic entity type."""
    done = []
    for e in spec.get("entities", []):
        if (op.entity is None or e["name"] == op.entity) and (e.get("emission") or {}).get("kind") == "periodic":
            e["emission"]["cadence"] = op.cadence
            done.append(e["name"])
    if not done:
        raise RefineError(f"{op.entity or 'no entity type'} does not report on a cadence")
    return f"cadence of {', '.join(done)} → every {op.cadence}"
