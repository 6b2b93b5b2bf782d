"""Understand a description offline: mentions (``tools.describe.mentions``) matched to the domain
catalog (``tools.describe.match``) become a multi-entity ``DomainDraft``.

Periodic reporters (turbines, meters, pods) become metric tables; lifecycle entities (trips, runs,
tickets, visits) become event logs with arrivals; parents (rider, driver, merchant) become static
tables the event rows point to; a mixed description gets both. Everything the text names is placed
(``evidence`` says which catalog entry it matched and the score) or listed in ``not_understood``.
"""

from __future__ import annotations

import re

from tools.describe.catalog_model import Catalog
from tools.describe.compose_machine import TERMINAL_ROLES, state_role
from tools.describe.draft import AttributeDraft, DescriptionError, DomainDraft, EntityDraft, MeasurementDraft
from tools.describe.extract import (
    _duration,
    find_entity,
    find_horizon,
    find_incidents,
    incident_words,
    nearest_pack,
    plural,
    snake,
)
from tools.describe.match import Match, SemanticScorer, best_match, index, singular, tokens, unit_fits
from tools.describe.mentions import (
    EVENT_WORDS,
    TIME_WORDS,
    EntityMention,
    SentenceFacts,
    entity_mentions,
    sentence_facts,
)
from tools.describe.phrases import Item, sentences, split_items, words_to_numbers
from tools.describe.units import parse_unit

PLACE_NOUNS = {"farm", "farms", "park", "parks", "field", "fields", "plant", "plants", "site", "sites", "station",
               "stations", "building", "buildings", "room", "rooms", "house", "houses", "hall", "yard", "shop", "system"}


def _word_end(text: str, word_index: int, words: str) -> int:
    """Character offset just after the catalog words found at ``word_index`` of ``text``."""
    spans = list(re.finditer(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*", text))
    last = min(len(spans) - 1, word_index + len(words.split()) - 1)
    return spans[last].end() if spans else 0


DEVICE_ROLES = {"normal", "degraded", "alarm", "critical", "down", "maintenance", "idle", "charging", "moving", "hovering",
                "low",
                "high", "tampered"}
NEEDS = ("what a description needs: the thing that reports or happens (\"40 wind turbines\", \"ride-hailing "
         "trips\"), what is measured (\"reporting power output in kW and rotor speed\") and, if you can, how often "
         "and for how long (\"every 10 minutes over two weeks\")")


def _ent_name(m: EntityMention) -> str:
    """The entity's name in the user's words: the head noun and one modifier, singular."""
    words = [w for w in re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", m.words.lower())
             if w not in ("of", "the", "our", "all", "some")]
    if len(words) > 1 and ("-" in words[-2] or (words[-2].endswith("ed") and len(words[-2]) > 4)):
        words = words[:-2] + words[-1:]  # "ride-hailing drivers" are drivers, "refrigerated trucks" trucks
    words = [w for w in words if not w.isdigit()][-2:]
    if len(words) == 2 and words[0] in ("smart", "new", "old", "big", "small", "many", "other", "checked", "active"):
        words = words[1:] if words[0] not in ("smart",) else words
    return snake("_".join([*words[:-1], singular(words[-1])])) if words else "entity"


PLACE_PLURALS = (r"branches|stores|shops|stations|sites|locations|clinics|hospitals|depots|offices|hubs|outlets|"
                 r"warehouses|pharmacies|garages|dealerships|gyms|schools|campuses|malls|restaurants|cinemas")
_GLUE = {"over", "a", "an", "the", "for", "during", "every", "each", "per", "in", "at", "on", "to", "with", "and", "or",
         "of", "from", "until", "within"}


class _Reader:
    def __init__(self, text: str, catalog: Catalog, semantic: SemanticScorer | None):
        self.text, self.catalog, self.semantic = text, catalog, semantic
        self.sents = sentences(text)
        self.facts: list[SentenceFacts] = [sentence_facts(s, catalog) for s in self.sents]
        self.evidence: dict[str, str] = {}
        self.not_understood: list[str] = []
        self.entities: dict[str, EntityDraft] = {}
        self.owner: list[str | None] = [None] * len(self.sents)  # the entity each sentence is about
        self.counted_owner = [False] * len(self.sents)

    def prefer(self, ent: EntityDraft):
        arch = self.catalog.entity(ent.catalog_id) if ent.catalog_id else None
        fields = {arch.field} if arch else set()
        usual = set(arch.measurements) if arch else set()

        def bonus(id_: str) -> float:
            try:
                m = self.catalog.measurement(id_)
            except StopIteration:
                return 0.0
            per_event = ent.kind == "lifecycle"  # an event log records per-event values, a reporter readings
            return (0.06 if id_ in usual else 0.0) + (0.03 if m.field in fields else 0.0) + \
                (0.02 if per_event == m.event_level else -0.08 if per_event else -0.04)
        return bonus

    # -- entities -------------------------------------------------------------------------
    def read_entities(self) -> None:
        by_catalog: dict[str, str] = {}
        last_counted: EntityMention | None = None
        self.spread_over()
        for m in entity_mentions(self.sents, self.catalog):
            if m.count is None and any(a <= m.pos < b for a, b in self.facts[m.sentence].used):
                continue  # "each has a site": an attribute, not an entity type
            gap = self.sents[m.sentence][last_counted.pos + len(last_counted.words): m.pos] if last_counted and \
                last_counted.sentence == m.sentence and m.count is None else None
            if gap is not None and re.fullmatch(r"\s+(?:with|having|equipped with|fitted with)\s+(?:\w+\s+)?", gap, re.I):
                self.alias(by_catalog.get(last_counted.catalog_id or "", _ent_name(last_counted)), m)
                continue  # "200 households with smart meters": one meter per household, one entity
            if m.count:
                last_counted = m
            name = by_catalog.get(m.catalog_id or "", _ent_name(m))
            if name not in self.entities and (m.catalog_id is None or m.count is None):
                name = self.head_owner(m.words) or name  # "250 visits a day" / "each car" name one read before
            arch = self.catalog.entity(m.catalog_id) if m.catalog_id else None
            if name not in self.entities:
                kind = arch.kind if arch else "periodic"
                if m.per_day and kind != "lifecycle" and not (arch and arch.kind == "periodic"):
                    kind = "lifecycle"  # "about 200 visits a day": things that arrive, not a fleet
                self.entities[name] = EntityDraft(name=name, plural=plural(name), catalog_id=m.catalog_id,
                                                  score=m.score, words=m.words, kind=kind)
                if m.catalog_id:
                    by_catalog[m.catalog_id] = name
                how = f"catalog entity '{m.catalog_id}' (score {m.score:.2f})" if arch else "no catalog entity matched"
                self.evidence[f"entity {name}"] = f"'{m.words}' → {how}"
                if not arch:
                    self.not_understood.append(f"'{m.words}': no catalog entity matched; modelled as a generic "
                                               "reporting device")
            e = self.entities[name]
            if m.count and e.count is None:
                days = (parse_days(self.horizon) or 7) if m.per_day else 1
                e.count = m.count * days
                self.evidence[f"count {name}"] = f"'{m.count} {m.words}{' a day' if m.per_day else ''}'"
            if self.owner[m.sentence] is None or (m.count and not self.counted_owner[m.sentence]):
                self.owner[m.sentence] = name
                self.counted_owner[m.sentence] = bool(m.count)
        self.subjects()
        if not self.entities:
            name, count, _subject, words = find_entity(self.text)
            if words.startswith("default"):
                return
            self.entities[name] = EntityDraft(name=name, plural=plural(name), count=count, words=words)
            self.evidence[f"entity {name}"] = f"'{words}' → no catalog entity matched"
            self.not_understood.append(f"'{words}': no catalog entity matched; modelled as a generic reporting device")
            self.owner[0] = name
        if not any(self.owner):
            self.subjects()
        per_day = re.search(r"(?:~|about |around |roughly )?(\d[\d,]*)\s*(?:/|per |a )day\b", self.text, re.I)
        events = [e for e in self.entities.values() if e.kind == "lifecycle" and e.count is None]
        if per_day and events and not any(f"count {e.name}" in self.evidence and e.kind == "lifecycle"
                                          for e in self.entities.values()):
            events[0].count = int(per_day.group(1).replace(",", "")) * (parse_days(self.horizon) or 7)
            self.evidence[f"count {events[0].name}"] = f"'{per_day.group(0)}' a day"
        last = next(iter(self.entities))
        for i, o in enumerate(self.owner):  # a sentence without an entity noun is about the one before
            last = o or last
            self.owner[i] = last

    def spread_over(self) -> None:
        """"Rooftop HVAC units across 40 supermarkets, one unit per store": the units report, 40 of them."""
        one = re.search(r"\b(?:one|1)\s+([a-z-]+)\s+(?:per|in each|at each|for each)\s+([a-z-]+)", self.text, re.I)
        for i, s in enumerate(self.sents):
            m = re.match(r"^\s*(?:the\s+|our\s+)?((?:[A-Za-z-]+\s+){0,3}[A-Za-z-]+s)\s+(?:across|in|at|on|over)\s+"
                         r"(?:about\s+)?(\d[\d,]*)\s+([A-Za-z-]+s)\b", s)
            if not m or (one is None) or singular(one.group(1).lower()) != singular(m.group(1).split()[-1].lower()):
                continue
            words = m.group(1)
            cands = [c for c in index(self.catalog, "entities").lexical(words) if c.score >= 0.8]
            name = _ent_name(EntityMention(i, 0, words, None, 0.0))
            arch = self.catalog.entity(cands[0].id) if cands else None
            self.entities[name] = EntityDraft(name=name, plural=plural(name), words=words, catalog_id=arch.id if arch else
                                              None, score=cands[0].score if cands else None,
                                              count=int(m.group(2).replace(",", "")),
                                              kind=arch.kind if arch and arch.kind != "static" else "periodic")
            self.evidence[f"entity {name}"] = f"'{m.group(0)}' and '{one.group(0)}'"
            self.evidence[f"count {name}"] = f"'{m.group(2)} {m.group(3)}', {one.group(0)}"
            self.owner[i], self.counted_owner[i] = name, True

    def alias(self, name: str, m: EntityMention) -> None:
        """Another name for an entity already read; a periodic archetype beats a static one."""
        e = self.entities.get(name)
        if e is None:
            return
        e.words = f"{e.words} / {m.words}"
        arch = self.catalog.entity(m.catalog_id) if m.catalog_id else None
        if arch and (e.catalog_id is None or self.catalog.entity(e.catalog_id).kind == "static") and arch.kind != "static":
            e.catalog_id, e.kind = arch.id, arch.kind
        self.evidence[f"entity {name}"] += f"; '{m.words}' read as the same thing" + (
            f" (catalog '{arch.id}')" if arch else "")

    def head_owner(self, text: str) -> str | None:
        """The known entity whose head noun the text uses ("each station" → docking_station)."""
        found = re.findall(r"[a-z]+", text.lower())
        if not found:
            return None
        head = singular(found[-1])
        for name, e in self.entities.items():
            own = set(name.split("_")) | {singular(w) for w in re.findall(r"[a-z]+", e.words.lower())}
            if head in own - {"smart", "data", "the", "of", "system", "ci", "api"} or head == name:
                return name
        return None

    def subjects(self) -> None:
        """A sentence that lists states is about its subject: a known entity ("an ATM is in service, ..."),
        or a new event entity ("Withdrawals go requested, approved, ...")."""
        for i, (s, f) in enumerate(zip(self.sents, self.facts, strict=True)):
            if f.subject_list:
                words, values = f.subject_list
                owner = self.head_owner(words)
                if owner:
                    f.states, f.state_ends, f.state_words = [snake(v) for v in values], [snake(values[-1])], s
                    self.owner[i] = owner
                else:
                    f.items.append(("colon", Item(words=words, raw=s, values=values)))
                continue
            some = re.match(r"^\s*(?:some|most|many|others|a few|few|several|the rest)\s+(?:of them\s+)?(?:are|is|get|end)\b",
                            s, re.I)
            if some and f.states:
                f.state_ends = list(f.states)  # "some are returned to sender or lost": more endings
                f.extra_states = True
                continue
            m = re.match(r"^\s*(?:(?:the|a|an|each|every|our|all|some|their)\s+)?((?:[\w-]+\s+){0,2}?[\w-]+?)\s+"
                         r"(?:are|is|go|goes|can be|may be|move|moves|get|gets|pass|passes|cycle|cycles|transition)\b",
                         s, re.I)
            daily = re.search(r"([A-Za-z-]+s)\s+(?:a|per|each)\s+day\s*:\s*[a-z]", s)
            if f.states and daily and self.head_owner(daily.group(1)):
                self.owner[i] = self.head_owner(daily.group(1))  # "..., about 200 visits a day: triaged, ..."
                continue
            if m is None and f.states:  # "Taxi meters in 200 cabs over a week: each trip is hailed, ...": its own subject
                m = re.search(r"[:;]\s*(?:each|every|a|an|the)\s+((?:[\w-]+\s+)?[\w-]+?)\s+(?:is|are|goes|go|gets|get)\b", s,
                              re.I)
            if m is None and f.states and re.search(r"\)?:\s*[a-z]", s):  # "Vet appointments at 5 clinics: booked, ..."
                m = re.match(r"^\s*(?:(?:the|a|an|our|all)\s+)?((?:[\w-]+\s+){0,2}[\w-]+s)\b", s, re.I)
            ends = [x for x in f.states if state_role(x, True, self.catalog, 1)[0] in TERMINAL_ROLES]
            events = [n for n, e in self.entities.items() if e.kind == "lifecycle"]
            bare = [n for n, e in self.entities.items() if e.kind == "periodic" and not e.states]
            read = [state_role(x, False, self.catalog, k) for k, x in enumerate(f.states)]
            device = {role for role, understood in read if understood}
            subject = m.group(1).split()[-1].lower() if m else ""
            steps = re.search(r"\bthen\b", f.state_words or s, re.I) is not None  # "..., then packaged or dumped"
            generic = singular(subject) in ("unit", "device", "machine", "sensor", "asset", "node", "system")
            named = m and (self.head_owner(m.group(1)) or self.head_owner(m.group(1).split()[0]))  # "Tickets printed"
            if m and len(bare) == 1 and not named and device & DEVICE_ROLES and \
                    not device & {"success", "cancelled"} and not steps and (singular(subject) == subject or generic):
                self.owner[i] = bare[0]  # "the reefer unit is cooling, defrosting or failed": the truck's states
                continue
            if ends and len(events) == 1 and (self.owner[i] is None or self.entities[self.owner[i]].kind != "lifecycle"):
                self.owner[i] = events[0]  # "patients ... are admitted, discharged or leave": the visit's states
                continue
            if m is None:
                lead = re.match(r"^\s*(?:each|every|the|a|an|all)\s+([\w-]+)", s, re.I)
                if self.owner[i] is None and lead:  # "Each station has a capacity"
                    self.owner[i] = self.head_owner(lead.group(1))
                continue
            known = self.head_owner(m.group(1))
            first = self.head_owner(m.group(1).split()[0]) if len(m.group(1).split()) > 1 else None
            by_first = known is None and first is not None and not self.entities[first].states and \
                self.entities[first].kind != "periodic"
            known = first if by_first else known  # "Tickets printed are queued, ...": the tickets named before
            said = singular(m.group(1).split()[-1].lower())
            if known and not by_first and said != known.split("_")[-1] and (steps or ends):
                known = None  # "infusions are started, ..., then completed" beside "infusion pumps": the events
            cands = [c for c in index(self.catalog, "entities").lexical(m.group(1)) if c.score >= 0.8]
            same = next((n for n, e in self.entities.items() if cands and e.catalog_id == cands[0].id), None)
            if known or same:
                self.owner[i] = known or same
                continue
            head = singular(m.group(1).split()[-1].lower())
            if not f.states or head in TIME_WORDS or head in ("it", "they", "this", "that", "there"):
                continue
            if head in ("status", "state", "mode", "stage", "condition", "phase", "reading", "value", "sample",
                        "measurement"):
                continue  # "Status: in service, ...", "Readings are in range or high": the entity's states
            attr = best_match(self.catalog, "attributes", m.group(1), self.semantic)
            values = [v.strip() for v in split_items(re.sub(r"^\s*(?:is|are|can be|may be|either)\s+(?:either\s+)?", "",
                                                              f.state_words, flags=re.I))]
            if (attr and attr.score >= 0.9) or all(v[:1].isupper() for v in values):
                f.items.append(("colon", Item(words=m.group(1), raw=f.state_words, values=values)))
                f.states, f.state_ends = [], []  # "breed is Holstein or Jersey": an attribute, not states
                continue
            name = snake("_".join(m.group(1).lower().split()[:-1] + [head]))
            arch = self.catalog.entity(cands[0].id) if cands else None
            self.entities[name] = EntityDraft(name=name, plural=plural(name), words=m.group(1),
                                              catalog_id=arch.id if arch else None,
                                              score=cands[0].score if cands else None, kind="lifecycle")
            self.evidence[f"entity {name}"] = f"'{m.group(1)}' (subject of a state list) → " + (
                f"catalog entity '{arch.id}'" if arch else "no catalog entity matched")
            self.owner[i] = name

    def settle_kinds(self) -> None:
        """Periodic where the text gives a cadence or reporting list; lifecycle where it gives event
        wording or a lifecycle archetype; static parents only beside a lifecycle entity."""
        for name, e in self.entities.items():
            own = [f for f, o in zip(self.facts, self.owner, strict=True) if o == name]
            cadence = next((f for f in own if f.cadence), None)
            reports = any(k == "report" for f in own for k, _ in f.items)
            if e.kind == "static" and (cadence or reports):
                e.kind = "periodic"
            states = next((f.states for f in own if f.states), [])
            ends = [x for i, x in enumerate(states) if state_role(x, True, self.catalog, i)[0] in TERMINAL_ROLES]
            per_day = f"count {name}" in self.evidence and "a day" in self.evidence[f"count {name}"]
            if e.kind == "static" and not cadence and len(states) >= 2 and ends:
                e.kind = "lifecycle"  # "tickets are queued, printing, printed or failed": they happen, they end
            if e.kind == "periodic" and not cadence and states and (EVENT_WORDS.search(" ".join(f.text for f in own))
                                                                    or ends or per_day):
                e.kind, e.event_driven = "lifecycle", True
            if e.kind == "periodic" and cadence:
                e.cadence = cadence.cadence
                self.evidence[f"cadence {name}"] = f"'{cadence.cadence_words}'"
            if e.kind == "lifecycle":
                e.event_driven = True
        owners = set(self.owner)
        for name, e in self.entities.items():  # "a bottling plant with 6 fillers": the plant is a parent
            if e.kind != "static" and name not in owners and e.count is None and len(self.entities) > 1:
                e.kind = "static"
        if not any(e.kind != "static" for e in self.entities.values()):
            first = next(iter(self.entities.values()))
            first.kind = "periodic"

    # -- lists ---------------------------------------------------------------------------
    def read_lists(self) -> None:
        for f, owner in zip(self.facts, self.owner, strict=True):
            e = self.entities[owner]
            if f.states and e.states and getattr(f, "extra_states", False):
                e.states += [x for x in f.states if x not in e.states]
                e.terminal = list(dict.fromkeys([*e.terminal, *f.state_ends]))
                self.evidence[f"states {e.name}"] += f"; '{f.state_words}'"
            elif f.states and not e.states:
                e.states = f.states
                e.terminal = list(f.state_ends)
                self.evidence[f"states {e.name}"] = f"'{f.state_words}'"
            for verb, it in f.items:
                self.place_item(e, verb, it)
            for word in f.per:
                self.place_per(e, word, f.text)
            for head, n in f.across:
                if head not in self.entities and not any(a.name == snake(head) for a in e.attributes):
                    self.add_attribute(e, head, f"across {n} {head}s", n_values=n)

    def then_steps(self) -> None:
        """"... approved or rejected; approved claims are then paid": paid follows approved and ends it."""
        for m in re.finditer(r"\b([a-z]+)\s+((?:[a-z]+\s+)?[a-z]+s)\s+(?:are|get|gets|is)\s+then\s+([a-z]+)\b", self.text,
                             re.I):
            owner = self.head_owner(m.group(2))
            e = self.entities.get(owner) if owner else None
            first, then = snake(m.group(1)), snake(m.group(3))
            if e is None or e.kind != "lifecycle" or first not in e.states or then in e.states:
                continue
            e.states.insert(e.states.index(first) + 1, then)
            e.terminal = [then if x == first else x for x in e.terminal] if first in e.terminal else [*e.terminal, then]
            e.continues.append(first)
            self.evidence[f"states {e.name}"] = self.evidence.get(f"states {e.name}", "") + f"; '{m.group(0)}'"

    def place_item(self, e: EntityDraft, verb: str, it) -> None:
        if not set(re.findall(r"[a-z]+", it.words.lower())) - _GLUE:
            return  # "over a" left from "every 15 minutes over a 12 day voyage": no name at all
        if any(re.search(rf"\b(?:{pattern})", it.words, re.I) for pattern, _kind in incident_words()):
            return  # "with an outage on a few sites": an incident wish, read by find_incidents
        ents = index(self.catalog, "entities").lexical(it.words)
        other = self.head_owner(it.words)
        if verb in ("have", "colon") and other and other != e.name and not it.values:
            if other not in e.parents:  # "each car belongs to a building"
                e.parents.append(other)
                self.evidence[f"parent {e.name}"] = f"'{it.raw}' → {other}"
            return
        if verb == "report" and (snake(it.words) in self.entities or (ents and ents[0].score >= 1.0)):
            return  # "with drivers": an entity, not a value
        m = self.match_measurement(e, it.words, it.unit)
        a = best_match(self.catalog, "attributes", it.words, self.semantic)
        if m is not None and m.how == "synonym in phrase" and m.score < 0.8:
            m = None  # "wingbeat harmonics" is not voltage harmonics: a partial match needs most of the words
        if verb == "loose" and other:
            return  # "Bedside monitors in a 24-bed ICU": the entity itself
        quantity = re.match(r"(?:number|count|amount|total|quantity) of\b|total\s+[a-z]+s$", it.words, re.I)
        if verb == "quantity":  # "flue gas temperature" in a terse list: a measurement, known or not
            verb = "report"
        if verb == "loose":  # a bare chunk of terse text: only a clear measurement or attribute counts
            owned = re.search(r"\b(?:of|for|per) (?:each|every) \w+", it.raw, re.I)  # "the airline of each bag"
            if (owned and not (m and m.score >= 0.85) and not it.unit) or \
                    (a and a.score >= 0.9 and not (m and m.score > a.score) and not it.unit):
                self.add_attribute(e, it.words, it.raw, values=it.values or [], match=a)
                return
            if not (m and m.score >= 0.75) and not it.unit and not quantity and it.low is None and it.high is None:
                return
        elif quantity and not it.values:
            pass
        elif verb == "have" and not it.unit and not (m and m.score >= 1.0 and (len(tokens(it.words)) >= 2 or (
                e.kind == "lifecycle" and self.catalog.measurement(m.id).event_level))):  # "each order has a tip"
            self.add_attribute(e, it.words, it.raw, values=it.values or [], match=a)  # "runs on a node"
            return
        elif it.values or (a and (m is None or a.score > m.score) and not it.unit) or \
                (m is None and verb in ("have", "colon") and not it.unit):
            self.add_attribute(e, it.words, it.raw, values=it.values or [], match=a)
            return
        name = snake(it.words)[:40]
        if any(x.name == name for x in e.measurements) or name in self.entities:
            return
        arch = self.catalog.measurement(m.id) if m else None
        named = set(tokens(it.words))
        if arch and arch.companions and not any(tokens(self.catalog.measurement(x).name)[0] in named
                                                for x in [arch.id, *arch.companions]):
            for id_ in [arch.id, *arch.companions]:  # "blood pressure" → systolic and diastolic columns
                part = self.catalog.measurement(id_)
                sub = f"{name}_{tokens(part.name)[0]}"
                e.measurements.append(MeasurementDraft(name=sub, words=f"{it.words} ({part.name})", unit=it.unit,
                                                       catalog_id=id_, score=m.score))
                self.evidence[f"measurement {e.name}.{sub}"] = f"'{it.raw}' → catalog '{id_}' (a pair: "\
                    f"{', '.join([arch.id, *arch.companions])})"
            return
        e.measurements.append(MeasurementDraft(name=name, words=it.words, unit=it.unit, level=it.level, low=it.low,
                                               high=it.high, whole=it.whole, catalog_id=m.id if m else None,
                                               score=m.score if m else None))
        if m:
            self.evidence[f"measurement {e.name}.{name}"] = f"'{it.raw}' → catalog '{m.id}' ({m.how}, score {m.score:.2f})"
        else:
            self.evidence[f"measurement {e.name}.{name}"] = f"'{it.raw}' → no catalog entry"
            self.not_understood.append(f"'{it.words}': no catalog measurement matched; modelled from its name "
                                       "and unit with generic defaults")

    def match_measurement(self, e: EntityDraft, words: str, unit: str | None):
        """The catalog measurement for the words, also read as "<entity> <words>" ("duration" of a
        ride is a trip duration); a unit pint cannot read rules out partial matches."""
        arch = self.catalog.entity(e.catalog_id) if e.catalog_id else None
        phrases = [words, f"{e.name.replace('_', ' ')} {words}"] + ([f"{arch.name} {words}"] if arch else [])
        best = None
        for i, phrase in enumerate(phrases):
            m = best_match(self.catalog, "measurements", phrase, self.semantic, self.prefer(e), unit=unit)
            if m is not None and (i == 0 or m.score >= 0.95) and (best is None or m.score > best.score):
                best = m
        if best is not None and unit and parse_unit(unit) is None and best.score < 0.95:
            return None  # "fill speed in bottles/minute" is no vehicle speed
        want = set(tokens(words))
        for id_ in arch.measurements if arch else []:  # "wait time" of a trip is its pickup wait time
            x = self.catalog.measurement(id_)
            if want and any(want <= set(tokens(w)) for w in [x.name, *x.synonyms]) and \
                    (unit is None or unit_fits(x.unit, unit)) and (best is None or best.score < 1.0 or
                                                                   best.id not in arch.measurements):
                return Match(id_, 0.95, f"the {arch.name}'s own '{x.name}'")
        return best

    def place_per(self, e: EntityDraft, word: str, sentence: str) -> None:
        if self.head_owner(word) == e.name:
            return  # "a region per household" of the households themselves
        ent = best_match(self.catalog, "entities", word)
        if ent and self.catalog.entity(ent.id).kind == "static" and ent.id != e.catalog_id:
            parent = self.catalog.entity(ent.id)
            if parent.id not in self.entities:
                self.entities[parent.id] = EntityDraft(name=parent.id, plural=parent.plural.replace(" ", "_"),
                                                       kind="static", catalog_id=parent.id, score=ent.score, words=word)
                self.evidence[f"entity {parent.id}"] = f"'per {word}' → catalog entity '{parent.id}'"
            if parent.id not in e.parents:
                e.parents.append(parent.id)
            return
        if snake(word) != e.name and snake(word) not in self.entities:
            self.add_attribute(e, word, f"per {word}")

    def add_attribute(self, e: EntityDraft, words: str, raw: str, values: list[str] | None = None,
                      n_values: int | None = None, match=None) -> None:
        periodic = [x for x in self.entities.values() if x.kind == "periodic"]
        if e.kind == "lifecycle" and len(periodic) == 1 and re.search(r"\b(?:locat|site|placement|install|mount)", words, re.I) \
                and not re.search(rf"\b{re.escape(e.words or e.name)}", raw, re.I):
            e = periodic[0]  # "Location type: branch, mall or ..." beside ATMs and withdrawals: where the ATM stands
        match = match or best_match(self.catalog, "attributes", words, self.semantic)
        ent_field = self.catalog.entity(e.catalog_id).field if e.catalog_id else None
        if match and ent_field and self.catalog.attribute(match.id).field not in ("general", ent_field):
            match = None  # a household's "region" is no cloud region
        name = snake(words)[:40]
        if any(a.name == name for a in e.attributes):
            return
        e.attributes.append(AttributeDraft(name=name, values=values or [], words=raw, n_values=n_values,
                                           catalog_id=match.id if match else None, score=match.score if match else None))
        how = f"catalog '{match.id}' (score {match.score:.2f})" if match else "no catalog entry"
        self.evidence[f"attribute {e.name}.{name}"] = f"'{raw}' → {how}"
        if not match and not values:
            self.not_understood.append(f"'{words}': no catalog attribute matched; given generic values")

    # -- relations and measurements named outside lists -----------------------------------
    def link_parents(self) -> None:
        lifecycles = [e for e in self.entities.values() if e.kind == "lifecycle"]
        words = {singular(w) for w in re.findall(r"[a-z]+", self.text.lower())}
        for e in lifecycles:  # "cancelled by the rider": a parent the archetype knows, named in passing
            arch = self.catalog.entity(e.catalog_id) if e.catalog_id else None
            for link in arch.parents if arch else []:
                p = self.catalog.entity(link.entity)
                if link.entity not in self.entities and p.kind == "static" and singular(p.name.split()[-1]) in words \
                        and not any(x.catalog_id == p.id for x in self.entities.values()):
                    self.entities[p.id] = EntityDraft(name=p.id, plural=plural(p.id), kind="static", catalog_id=p.id,
                                                      score=1.0, words=p.name)
                    self.evidence[f"entity {p.id}"] = f"'{p.name}' named in the text → catalog parent of {e.name}"
        place = re.search(r"\b(?:at|in|from|across)\s+(?:(?:the|our|its|their|\d+|several|many|all|multiple)\s+)?"
                          r"(?:[a-z-]+\s+)?(" + PLACE_PLURALS + r")\b", self.text, re.I)
        if place and lifecycles and not any(x.kind == "static" for x in self.entities.values()):
            name = singular(place.group(1).lower()).replace("centre", "center")  # "at airport branches"
            if name not in self.entities and not self.head_owner(place.group(1)):
                self.entities[name] = EntityDraft(name=name, plural=plural(name), kind="static", words=place.group(1))
                self.evidence[f"entity {name}"] = f"'{place.group(0)}': the places the {lifecycles[0].plural} happen at"
        for e in lifecycles:
            arch = self.catalog.entity(e.catalog_id) if e.catalog_id else None
            known = {p.entity for p in arch.parents} if arch else set()
            for other in self.entities.values():
                if other is e or other.name in e.parents:
                    continue
                if other.kind == "static" and (other.catalog_id in known or len(lifecycles) == 1):
                    e.parents.append(other.name)
                elif other.kind == "periodic" and other.catalog_id in known:
                    e.parents.append(other.name)
        periodic = [e for e in self.entities.values() if e.kind == "periodic"]
        for e in lifecycles:  # "6 fillers ...; batches are ...": the events happen on the reporting devices
            if len(periodic) == 1 and periodic[0].name not in e.parents:
                e.parents.append(periodic[0].name)
                self.evidence[f"parent {e.name}"] = f"default: {e.plural} belong to the {periodic[0].plural}"
        for other in self.entities.values():
            if other.kind == "static" and not any(other.name in x.parents for x in self.entities.values()):
                first = next((x for x in self.entities.values() if x.kind != "static"), None)
                if first is not None:
                    first.parents.append(other.name)

    def one_per_place(self) -> None:
        """"A ward with 20 beds. Each bedside monitor sends ...": one reporter per counted place."""
        places = [x for x in self.entities.values() if x.kind == "static" and x.count]
        for e in self.entities.values():
            head = (e.words or e.name).split("/")[0].split()[-1:] or [e.name]
            if e.kind != "periodic" or e.count or len(places) != 1 or not re.search(
                    rf"\b(?:each|every)\s+(?:[\w-]+\s+)?{re.escape(singular(head[0].lower()))}\b", self.text, re.I):
                continue
            e.count = places[0].count
            self.evidence[f"count {e.name}"] = f"one per {places[0].name.replace('_', ' ')} ({places[0].count})"

    def scan_measurements(self) -> None:
        """Catalog measurements named outside a list ("alarms when SpO2 drops") join the entity."""
        idx = index(self.catalog, "measurements")
        for f, owner in zip(self.facts, self.owner, strict=True):
            e = self.entities[owner]
            if e.kind == "static":
                continue
            named_in_lists = " ".join(it.raw for _, it in f.items).lower()
            entity_words = " ".join(x.words.lower() for x in self.entities.values())
            seen_pos: set[int] = set()
            for pos, _id, words in idx.mentions(f.text):
                if pos in seen_pos:
                    continue
                seen_pos.add(pos)
                best = self.match_measurement(e, words, None)  # the entity's own archetype for shared words
                if best is None:
                    continue
                id_ = best.id  # of the entries sharing the words, the one that fits the entity best
                low = words.lower()
                after = f.text[_word_end(f.text, pos, words):].split()[:1]
                if low in named_in_lists or low in " ".join(e.states).replace("_", " ") or low in entity_words or \
                        (after and after[0].lower() in PLACE_NOUNS):  # "a wind farm" names no wind
                    continue
                if any(m.catalog_id == id_ or m.name in (id_, snake(words)) for m in e.measurements) or len(words) < 3:
                    continue
                e.measurements.append(MeasurementDraft(name=snake(words), words=words, catalog_id=id_, score=1.0))
                self.evidence[f"measurement {e.name}.{id_}"] = f"'{words}' named in '{f.text[:60]}' → catalog '{id_}'"

    horizon: str | None = None


def parse_days(horizon: str | None) -> int | None:
    """Whole days of a horizon like '14d' (None when not stated)."""
    from tools.common.durations import parse_duration

    return max(1, int(parse_duration(horizon) // 86400)) if horizon else None


def understand(description: str, catalog: Catalog, semantic: SemanticScorer | None = None) -> DomainDraft:
    """The draft of a description (see the module docstring); ``DescriptionError`` when it names
    nothing that can be modelled."""
    text = words_to_numbers(" ".join((description or "").split()))
    if not re.search(r"[A-Za-z]{3,}", text):
        raise DescriptionError(f"the description is empty; {NEEDS}")
    r = _Reader(text, catalog, semantic)
    r.horizon, h_words = find_horizon(text)
    if r.horizon is None:  # terse text: "freezers, temp every 5 min, 2 weeks"
        m = re.search(r"(?<!every )(?<!each )(?<!per )\b(\d+)\s*(days?|weeks?|wks?|months?|mos?)\b(?!\s+(?:ago|old|later|after|before|"
                      r"of (?:data|history)?\b(?!s)))", text, re.I)
        if m and not re.search(r"\b(?:every|each|per|within|after|in)\s+$", text[: m.start()], re.I):
            r.horizon, h_words = _duration(m.group(1), m.group(2)), m.group(0)
    r.read_entities()
    if not r.entities:
        raise DescriptionError(f"nothing in '{text[:80]}' names a thing to model; {NEEDS}")
    r.settle_kinds()
    r.read_lists()
    r.scan_measurements()
    r.then_steps()
    if any(e.kind == "lifecycle" or e.measurements for e in r.entities.values()):
        for e in r.entities.values():  # "a chain of 12 hotels" beside reservations: a parent, not a reporter
            if e.kind == "periodic" and not (e.measurements or e.states or e.cadence):
                e.kind = "static"
    r.link_parents()
    r.one_per_place()

    def weight(e: EntityDraft) -> tuple[bool, int, int, bool]:
        facts = len(e.measurements) + len(e.states) + len(e.attributes)
        return facts > 0, {"periodic": 2, "lifecycle": 1}.get(e.kind, 0), facts, e.catalog_id is not None
    best = max(weight(e) for e in r.entities.values())
    main = next(e for e in r.entities.values() if weight(e) == best)
    if main.catalog_id is None and not main.measurements and not main.states:
        raise DescriptionError(f"nothing in '{text[:80]}' is a known kind of device, event or measurement; {NEEDS}")
    last_word = (main.words or "x").split()[-1].lower()
    per = next((a for a in main.attributes if a.words.startswith("per ") and not a.values), None)
    if main.count is None and main.kind == "periodic" and singular(last_word) == last_word and per is not None \
            and len(r.entities) == 1:  # "a payments API with p95 latency per region": one series per region
        r.evidence[f"entity {per.name}"] = f"'{per.words}': one series per {per.name} of the {main.words}"
        main.attributes = [a for a in main.attributes if a is not per]
        main.name, main.plural, main.words = per.name, plural(per.name), per.name
    others = [e for e in r.entities.values() if e is not main]
    incidents = find_incidents(text)
    ev = {**r.evidence, "horizon": f"'{h_words}'" if r.horizon else "default: not stated",
          "entity": (f"{main.count} {main.words}" if main.count and f"count {main.name}" in r.evidence else main.words)
          or main.name, "count": r.evidence.get(f"count {main.name}", "default: not stated"),
          "measurements": ", ".join(m.words for m in main.measurements) or "default: none named",
          "states": r.evidence.get(f"states {main.name}", "default: none named"),
          "cadence": r.evidence.get(f"cadence {main.name}", "default: not stated")}
    for kind, words in incidents:
        ev[f"incident {kind}"] = words
    used = {i for i, f in enumerate(r.facts) if f.items or f.states or f.cadence or f.per or f.across}
    used |= {i for i, s in enumerate(r.sents) if any(e.words and e.words.lower() in s.lower() for e in r.entities.values())}
    for i, s in enumerate(r.sents):
        if i not in used and not any(w in s.lower() for _k, w in incidents) and len(s.split()) > 2:
            r.not_understood.append(f"sentence '{s}': nothing in it was understood")
    name = snake(f"{main.name}_{others[0].name}") if any(o.kind == "lifecycle" for o in others) else main.plural
    return DomainDraft(name=snake(name)[:40], description=text, entity=main, others=others, horizon=r.horizon,
                       incident_hints=[k for k, _ in incidents], nearest_pack=nearest_pack(text), evidence=ev,
                       not_understood=list(dict.fromkeys(r.not_understood)))
