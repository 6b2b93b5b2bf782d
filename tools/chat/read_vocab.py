"""What a spec lets a chat line name, derived from the spec's own data: entity types (their name,
plural, id prefix and catalog words), measurements (column words), states, categorical attribute
values, personas, incidents (kind, day, clock, size, keys), incident kinds, question families and
templates. Nothing here knows any one bundle."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from tools.chat.read_words import stem
from tools.common.families import FAMILIES
from tools.spec.model import Spec

GENERIC_STEMS = {"rate", "count", "number", "level", "value", "total", "average", "mean", "time", "data", "state",
                 "status", "per", "the", "of", "a", "an", "and", "in", "on", "catalog", "ratio", "percent"}
FAMILY_WORDS = {**{f.replace("_", " "): f for f in FAMILIES}, "forecasting": "forecast", "prediction": "forecast",
                "predictive": "forecast", "trend": "shape", "shape and trend": "shape", "trends": "shape", "claims": "claim", "true or false": "claim",
                "true/false": "claim", "false-premise": "false_premise", "trick": "false_premise",
                "anomaly detection": "detection", "unanswerable": "unanswerable"}


@dataclass(frozen=True)
class IncidentFacts:
    """One incident as a chat line may refer to it."""

    id: str
    kinds: tuple[str, ...]
    position: int
    start_s: float | None
    day: int | None
    clock: str | None
    size: int | None
    entity: str
    keys: tuple[str, ...]


@dataclass
class Vocabulary:
    """Everything a spec lets a chat line name, and the words for each."""

    spec: Spec
    entity_words: dict[str, set[str]] = field(default_factory=dict)  # stem -> entity type names
    id_patterns: list[tuple[re.Pattern, str]] = field(default_factory=list)
    measurements: dict[str, set[str]] = field(default_factory=dict)  # column -> stems (name words first)
    measurement_names: dict[str, set[str]] = field(default_factory=dict)  # column -> stems of its name
    states: dict[str, str] = field(default_factory=dict)  # state name -> entity type
    values: list[tuple[str, str, str]] = field(default_factory=list)  # (value, attribute, entity), longest first
    personas: list[str] = field(default_factory=list)
    incidents: list[IncidentFacts] = field(default_factory=list)
    kinds: list[tuple[str, str]] = field(default_factory=list)  # (regex, kind)
    templates: dict[str, str] = field(default_factory=dict)  # words -> template name
    words: set[str] = field(default_factory=set)  # every word worth repairing a typo towards

    @property
    def days(self) -> int:
        """Whole days the horizon covers (at least 1)."""
        return max(1, int(-(-self.spec.horizon_seconds // 86400)))

    def entities_for(self, word: str) -> set[str]:
        """The entity types a word names ('towers', 'sites', 'cells' → cell_tower)."""
        return self.entity_words.get(stem(word), set())

    def entity_for_id(self, ident: str) -> str | None:
        """The entity type whose id format an id has (None: no type's)."""
        return next((e for p, e in self.id_patterns if p.fullmatch(ident)), None)

    def incident(self, ident: str) -> IncidentFacts | None:
        """The incident with this id."""
        return next((i for i in self.incidents if i.id == ident), None)


def _id_pattern(fmt: str) -> re.Pattern:
    parts = re.split(r"(\{i(?::[^}]*)?\})", fmt)
    rx = "".join(r"\d+" if p.startswith("{i") else re.escape(p) for p in parts)
    return re.compile(rx, re.I)


def _entity_words(e) -> set[str]:
    words = set(e.name.split("_")) | {e.name.replace("_", " ")}
    prefix = re.match(r"[A-Za-z]+", e.id.format or "")
    if prefix and len(prefix.group(0)) >= 3:
        words.add(prefix.group(0).lower())
    for cat in re.findall(r"catalog:\s*([a-z0-9_]+)", e.description or "", re.I):
        words |= set(cat.lower().split("_"))
    return {stem(w) for w in words if len(w) >= 3}


def _kind_patterns() -> list[tuple[str, str]]:
    from tools.describe.extract import incident_words
    from tools.patterns.model import KINDS

    out = [(rf"\b(?:{words})\w*", kind) for words, kind in incident_words(in_descriptions=False)]
    out += [(r"\b" + k.replace("_", r"[ _-]?") + r"s?\b", k) for k in KINDS if k != "cascade"]
    out.append((r"\bbehaviou?r[ _-]?shifts?\b", "behavior_shift"))
    return out


@lru_cache(maxsize=1)
def _template_words() -> dict[str, str]:
    from tools.queries.registry import load_templates

    return {name.replace("_", " "): name for name in load_templates() if name not in FAMILIES}


def _incident_facts(spec: Spec, inc, position: int) -> IncidentFacts:
    from tools.generate.incidents.resolve import window_seconds

    root = getattr(inc, "root", None)
    body = root or inc
    try:
        start_s = window_seconds(body.window.start, spec)
    except ValueError:
        start_s = None
    day = clock = None
    if start_s is not None:
        at = spec.start_dt.timestamp() + start_s
        midnight = spec.start_dt.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
        day = int((at - midnight) // 86400) + 1
        minutes = int((at - midnight) % 86400 // 60)
        clock = f"{minutes // 60:02d}:{minutes % 60:02d}"
    t = body.target
    size = len(t.ids) if t.ids else t.random
    keys = tuple(getattr(body, "keys", None) or (getattr(body, "effects", None) or {}).keys())
    kinds = (inc.kind, body.kind) if root is not None else (inc.kind,)
    return IncidentFacts(inc.id, kinds, position, start_s, day, clock, size, t.entity, keys)


def vocabulary(spec: Spec) -> Vocabulary:
    """The vocabulary of one spec."""
    v = Vocabulary(spec)
    for e in spec.entities:
        for w in _entity_words(e):
            v.entity_words.setdefault(w, set()).add(e.name)
        v.id_patterns.append((_id_pattern(e.id.format), e.name))
        for m in e.measurements:
            if m.hidden:
                continue
            name = {stem(w) for w in m.name.split("_")}
            desc = re.sub(r"\(catalog:[^)]*\)", " ", m.description or "")
            v.measurement_names[m.name] = name
            v.measurements[m.name] = name | {stem(w) for w in re.findall(r"[a-z][a-z0-9]+", desc.lower())}
        if e.states:
            for s in e.states.states:
                v.states.setdefault(s, e.name)
        for a in e.attributes:
            for value in getattr(a.dist, "values", None) or {}:
                if isinstance(value, str) and value.strip():
                    v.values.append((value.lower(), a.name, e.name))
    v.values.sort(key=lambda x: -len(x[0]))
    v.personas = [p.name for p in spec.personas]
    v.incidents = [_incident_facts(spec, inc, i + 1) for i, inc in enumerate(spec.incidents)]
    v.kinds = _kind_patterns()
    v.templates = _template_words()
    v.words = _repair_words(v)
    return v


_GRAMMAR_WORDS = """add remove delete drop move make change set show list display extend shorten lengthen report
sample double halve triple scale increase decrease reduce raise lower update edit inject insert create include
rename delay postpone persona personas incident incidents question questions description style horizon cadence
tomorrow yesterday today tonight monday tuesday wednesday thursday friday saturday sunday january february march
april may june july august september october november december minute minutes hour hours day days week weeks
earlier later first second third fourth fifth last another harder difficulty history spec outage outages spike
spikes flatline dip degradation towers every hourly daily often shorter longer instead questions about
""".split()


def _repair_words(v: Vocabulary) -> set[str]:
    words = set(_GRAMMAR_WORDS)
    for w in v.entity_words:
        words |= {w, w + "s"}
    for name in [*v.measurements, *v.states, *v.personas, *FAMILIES, *v.templates.values()]:
        words |= set(name.split("_"))
    for value, _, _ in v.values:
        words |= set(value.split())
    return {w for w in words if w.isalpha() and len(w) >= 4}
