"""Described incidents (``IncidentDraft``) as spec incidents on the composed entity types.

The target is the entity type the sentence names (or the one owning the named measurement), by
the ids it names (the entity's ids are made to include them), a count (``random: k``), all of them
(``where: []``) or through a parent (``where`` on the foreign key, parents chosen by seed). The
window, the size and the direction are the stated ones; what is not stated takes a default that
says "default" in the decisions, and what cannot be placed is returned as not understood.
"""

from __future__ import annotations

import random
import re
from datetime import date, timedelta
from typing import Any

from tools.common.durations import parse_duration
from tools.describe.catalog_model import MeasurementArchetype
from tools.describe.compose_incidents import _sized, failure_transitions
from tools.describe.described_ids import (
    context_lists,
    entity_ids,
    make_ids_exist,
    match_entity,
    measurement_score,
    rank_measurements,
)
from tools.describe.described_overlaps import stack
from tools.describe.incident_draft import IncidentDraft
from tools.describe.incident_when import format_seconds

_KINDS = {"outage": "data_outage", "gaps": "null_burst", "stuck": "flatline", "noise": "variance_burst",
          "drift": "slow_drift", "shift": "level_shift", "spike": "spike", "dip": "dip", "degradation": "kpi_degradation",
          "surge": "spike", "behaviour": "kpi_degradation"}
_DEFAULT_HOURS = {"data_outage": 2, "null_burst": 3, "flatline": 4, "slow_drift": 24, "flash_crowd": 2, "spike": 1}
START = date(2026, 1, 1)  # the spec start the composer writes (compose_world)


class Described:
    """Turns the draft's incidents into spec incident dicts (see the module docstring)."""

    def __init__(self, entities: list[dict], drafts: list, archs: dict[str, MeasurementArchetype], days: int,
                 horizon_s: float, seed: int, description: str, decisions: list[str], unplaced: list[str]):
        self.entities, self.drafts, self.archs = entities, drafts, archs
        self.days, self.horizon_s, self.seed = days, horizon_s, seed
        self.lists = context_lists(description)
        self.decisions, self.unplaced = decisions, unplaced
        self.roles: dict[str, dict[str, str]] = {}

    def compose(self, incidents: list[IncidentDraft]) -> list[dict]:
        """One spec incident per placeable draft, in the order described."""
        out: list[dict] = []
        for n, inc in enumerate(incidents, 1):
            try:
                out.append(self.one(inc, f"described_{n}"))
            except _Unplaced as exc:
                self.unplaced.append(f"incident '{inc.text}': {exc} (understood: {_understood(inc)})")
        stack(out, self.decisions)
        return out

    # -- the target -------------------------------------------------------------------------------
    def target_entity(self, inc: IncidentDraft) -> tuple[dict, str]:
        emit = [e for e in self.entities if e.get("emission")]
        if not emit:
            raise _Unplaced("no entity type writes rows an incident could change")
        parent = match_entity(inc.parent_words, emit, self.drafts) if inc.parent_words else None
        own = next((e for w in inc.entity_words if (e := match_entity(w, emit, self.drafts))), None)
        listed = self.listed_ids(inc)
        if listed:
            return listed[0], f"the ids {', '.join(listed[1])}"
        if parent is not None and (own is None or own is parent):
            inc.ids, inc.parent_ids = inc.ids or inc.parent_ids, []
            inc.count = inc.count or (inc.parent_count if not inc.ids else None)
            inc.words["count"] = inc.words.get("count") or inc.words.get("parent", "")
            inc.parent_words, inc.parent_count = None, None
            return parent, f"'{parent['name'].replace('_', ' ')}' named"
        if own is not None:
            return own, f"'{own['name'].replace('_', ' ')}' named"
        best = max(emit, key=lambda e: max([measurement_score(inc.subject, m["name"]) for m in e["measurements"]] or [0]))
        if max([measurement_score(inc.subject, m["name"]) for m in best["measurements"]] or [0]) > 0:
            return best, "the entity type that reports the named measurement"
        return emit[0], "default: the main entity type (the sentence names none the description has)"

    def listed_ids(self, inc: IncidentDraft) -> tuple[dict, list[str]] | None:
        """Ids the sentence takes from a list the description gives ("3 platforms (iOS, Android, web)")."""
        for noun, values in self.lists:
            ent = match_entity(noun, self.entities, self.drafts)
            if ent is None:
                continue
            said = [v for v in values if re.search(rf"(?<![\w°-]){re.escape(v)}(?![\w-])", inc.text,
                                                   re.I if len(v) > 3 else 0)]
            if said and ent.get("emission"):
                inc.ids = said
                return ent, said
            if said and ent is not None and inc.parent_words is None:
                inc.parent_words, inc.parent_ids = noun, said
        return None

    def target(self, inc: IncidentDraft, ent: dict, key: str) -> dict:
        t: dict[str, Any] = {"entity": ent["name"]}
        words = inc.words
        if inc.ids:
            note = make_ids_exist(ent, inc.ids, self.lists, self.drafts)
            t["ids"] = list(dict.fromkeys(inc.ids))
            self.decisions.append(f"incident {key}: targets {', '.join(t['ids'])} ('{words.get('ids', '')}'){note}")
            return t
        if inc.parent_words:
            where = self.parent_where(inc, ent, key)
            if where is not None:
                t["where"] = where
                return t
        if inc.count is not None:
            if inc.count > ent["count"]:
                raise _Unplaced(f"{inc.count} {ent['name']} asked for, but there are only {ent['count']}")
            if inc.all or inc.count == ent["count"]:
                t["where"] = []
            else:
                t["random"] = inc.count
            self.decisions.append(f"incident {key}: {inc.count} {ent['name']} ('{words.get('count', '')}')")
            return t
        if inc.all:
            t["where"] = []
            self.decisions.append(f"incident {key}: every {ent['name']} ('{words.get('all', '')}')")
            return t
        k = max(1, min(3, ent["count"] // 10))
        t["random"] = k
        self.decisions.append(f"incident {key}: {k} {ent['name']} chosen by seed: default (the sentence says not which)")
        return t

    def parent_where(self, inc: IncidentDraft, ent: dict, key: str) -> list[dict] | None:
        fks = {a["dist"]["entity"]: a["name"] for a in ent.get("attributes", []) if a["dist"]["kind"] == "foreign_key"}
        parents = [e for e in self.entities if e["name"] in fks]
        parent = match_entity(inc.parent_words, parents, self.drafts)
        words = inc.words.get("parent", inc.parent_words)
        if parent is None:
            attr = next((a for a in ent.get("attributes", []) if a["dist"]["kind"] == "categorical" and
                         match_entity(inc.parent_words, [{"name": a["name"]}], []) is not None), None)
            if attr is None:
                self.unplaced.append(f"incident '{inc.text}': '{inc.parent_words}' is not something the "
                                     f"{ent['name']} belong to in this description; placed on "
                                     f"{'every' if inc.all else 'random'} {ent['name']} instead")
                return None
            values = list(attr["dist"]["values"])
            k = inc.parent_count or 1
            chosen = sorted(random.Random(f"{self.seed}:{key}").sample(values, min(k, len(values))))
            self.decisions.append(f"incident {key}: {ent['name']} with {attr['name']} in {', '.join(chosen)} ('{words}')")
            return [{"attribute": attr["name"], "in": chosen}]
        if inc.parent_ids:
            note = make_ids_exist(parent, inc.parent_ids, self.lists, self.drafts)
            chosen = list(dict.fromkeys(inc.parent_ids))
            self.decisions.append(f"incident {key}: every {ent['name']} of {parent['name']} {', '.join(chosen)} "
                                  f"('{words}'){note}")
        else:
            k = inc.parent_count or 1
            ids = entity_ids(parent)
            if k > len(ids):
                raise _Unplaced(f"{k} {parent['name']} asked for, but there are only {len(ids)}")
            chosen = sorted(random.Random(f"{self.seed}:{key}").sample(ids, k))
            self.decisions.append(f"incident {key}: every {ent['name']} in {k} {parent['name']} chosen by seed: "
                                  f"{', '.join(chosen)} ('{words}')")
        return [{"attribute": fks[parent["name"]], "in": chosen}]

    # -- when --------------------------------------------------------------------------------------
    def window(self, inc: IncidentDraft, kind: str, key: str) -> dict:
        w = inc.words
        day = inc.day
        if day is None and inc.week is not None and inc.weekday is not None:
            first = (inc.week - 1) * 7 + 1
            day = next(d for d in range(first, first + 7) if (START + timedelta(days=d - 1)).weekday() == inc.weekday)
            self.decisions.append(f"incident {key}: day {day} ('{w.get('day', '')}', counting weeks from the first day)")
        elif day is None:
            day = max(1, self.days // 2)
            self.decisions.append(f"incident {key}: day {day}: default (the sentence states no day)")
        if day > self.days:
            raise _Unplaced(f"day {day} is after the end of the data ({self.days} days)")
        start = inc.start or ("00:00" if inc.duration and parse_duration(inc.duration) % 86400 == 0 else "10:00")
        if not inc.start:
            self.decisions.append(f"incident {key}: starts at {start}: default (the sentence states no time)")
        offset = (day - 1) * 86400 + int(start[:2]) * 3600 + int(start[3:]) * 60
        left = self.horizon_s - offset
        if inc.duration:
            seconds = parse_duration(inc.duration)
        elif inc.to_end:
            seconds = left
            self.decisions.append(f"incident {key}: lasts until the end of the data ('{w.get('duration', '')}')")
        else:
            seconds = _DEFAULT_HOURS.get(kind, 4) * 3600.0
            self.decisions.append(f"incident {key}: lasts {format_seconds(seconds)}: default (the sentence states "
                                  "no duration)")
        if seconds > left:
            self.unplaced.append(f"incident '{inc.text}': {format_seconds(seconds)} from day {day} {start} runs past "
                                 f"the end of the data; shortened to {format_seconds(left)}")
            seconds = left
        return {"start": f"day {day} {start}", "duration": format_seconds(seconds)}

    # -- what and how much ----------------------------------------------------------------------------
    def one(self, inc: IncidentDraft, key: str) -> dict:
        if inc.what is None:
            raise _Unplaced("no kind of incident (outage, spike, drift, ...) could be read")
        ent, why = self.target_entity(inc)
        lifecycle = "arrival" in ent
        kind = _KINDS[inc.what]
        if inc.what == "degradation" and inc.gradual:
            kind = "slow_drift"
        if lifecycle and inc.what in ("surge", "behaviour"):
            kind = "flash_crowd" if inc.what == "surge" else "behavior_shift"
        meas, mwords = self.measurement(inc, ent, kind)
        up = self.up(inc, meas)
        if kind == "spike" and not up:
            kind = "dip"
        if kind == "dip" and inc.size_unit == "zero" and (inc.to_end or (inc.duration and parse_duration(inc.duration) > 6 * 3600)):
            kind = "level_shift"
        out: dict[str, Any] = {"kind": kind, "id": f"{key}_{kind}", "description": inc.text}
        key = out["id"]
        self.decisions.append(f"incident {key}: {kind} ('{inc.words.get('what', '')}') on {ent['name']} ({why})"
                              + (f", {meas} ('{mwords}')" if meas else ""))
        out["target"] = self.target(inc, ent, key)
        out["window"] = self.window(inc, kind, key)
        if kind == "flash_crowd":
            out["surge"] = self.relative(inc, key) or "+200%"
        elif kind == "behavior_shift":
            trans = failure_transitions(ent["states"], self.roles.get(ent["name"], {}))
            if not trans:
                raise _Unplaced(f"{ent['name']} has no failure or cancellation state to shift into")
            out["transitions"] = trans
        elif kind in ("flatline", "null_burst"):
            out["keys"] = [meas]
        elif kind != "data_outage":
            out["effects"] = {meas: self.size(inc, ent, meas, kind, up, key)}
        return out

    def measurement(self, inc: IncidentDraft, ent: dict, kind: str) -> tuple[str | None, str]:
        if kind in ("data_outage", "flash_crowd", "behavior_shift"):
            return None, ""
        names = [m["name"] for m in ent["measurements"]]
        if not names:
            raise _Unplaced(f"{ent['name']} reports no measurement to change")
        scored = rank_measurements(inc.subject, ent["name"], names, inc.what == "behaviour")
        if scored[0][0] > 0:
            return scored[0][1], scored[0][1].replace("_", " ")
        default = names[0]
        for m in ent["measurements"]:
            if _sized(m, self.archs.get(m["name"]), 8.0) is not None:
                default = m["name"]
                break
        attr = next((a["name"] for a in ent.get("attributes", []) if measurement_score(inc.subject, a["name"]) > 0), None)
        if attr:
            self.unplaced.append(f"incident '{inc.text}': '{attr.replace('_', ' ')}' is read as a static attribute of "
                                 f"{ent['name']}, not a measurement; the incident is placed on {default} instead")
        self.decisions.append(f"incident on {ent['name']}: measurement {default}: default (the sentence names none "
                              "of its measurements)")
        return default, "default"

    def up(self, inc: IncidentDraft, meas: str | None) -> bool:
        if inc.direction is not None:
            return inc.direction == "up"
        arch = self.archs.get(meas or "")
        return arch is None or arch.worse != "down"

    def relative(self, inc: IncidentDraft, key: str) -> str | None:
        if inc.size_unit == "x" and inc.size is not None:
            return f"{(inc.size - 1) * 100:+.6g}%"
        if inc.size_unit == "%" and inc.size is not None:
            return f"{'+' if inc.direction != 'down' else '-'}{inc.size:.6g}%"
        return None

    def size(self, inc: IncidentDraft, ent: dict, meas: str, kind: str, up: bool, key: str) -> str | float:
        sign = "+" if up else "-"
        said = inc.words.get("size", "")
        if inc.size_unit == "zero":
            value: str | float = "-100%"
        elif inc.size_unit == "x" and inc.size is not None:
            value = f"{(inc.size - 1) * 100:+.6g}%"
        elif inc.size_unit == "%" and inc.size is not None:
            value = f"{sign}{inc.size:.6g}%"
        elif inc.size_unit == "units" and inc.size is not None:
            value = inc.size if kind == "variance_burst" else float(f"{sign}{inc.size:.6g}")
            unit = next((m.get("unit") for m in ent["measurements"] if m["name"] == meas), None)
            if unit and inc.unit and inc.unit not in (unit, "°C" if "C" in str(unit) else unit):
                self.unplaced.append(f"incident '{inc.text}': the size is stated in {inc.unit}, {meas} is in {unit}; "
                                     f"kept as {inc.size:g} {unit}")
        else:
            spec = next(m for m in ent["measurements"] if m["name"] == meas)
            value = "10sigma" if kind == "variance_burst" else _sized(spec, self.archs.get(meas), 8.0, up=up) or \
                f"{sign}6sigma"
            self.decisions.append(f"incident {key}: size {value}: default (the sentence states none; "
                                  f"{'up' if up else 'down'}, {'as stated' if inc.direction else 'the worse way'})")
            return value
        self.decisions.append(f"incident {key}: size {value} ('{said}')")
        return value


class _Unplaced(Exception):  # noqa: N818 - a reason, raised and caught here only
    """A described incident that cannot be placed (the message says why)."""


def _understood(inc: IncidentDraft) -> str:
    return ", ".join(f"{k} '{v}'" for k, v in inc.words.items()) or "nothing"
