"""Reading the entities of a description: counted and catalog nouns, who each sentence is about,
and whether each entity reports periodically, happens (a lifecycle) or is a static parent."""

from __future__ import annotations

import re

from tools.describe.compose_machine import TERMINAL_ROLES, state_role
from tools.describe.draft import EntityDraft
from tools.describe.extract import find_entity, plural, snake
from tools.describe.field_context import accept, set_aside
from tools.describe.match import best_match, index, singular
from tools.describe.mentions import EVENT_WORDS, TIME_WORDS, EntityMention, entity_mentions
from tools.describe.phrases import Item, split_items
from tools.describe.reader_base import DEVICE_ROLES, entity_name, parse_days
from tools.describe.reader_flows import FlowReader
from tools.describe.workflow import PARTICIPLES


def _steps(values: list[str]) -> bool:
    """Whether listed values read as the steps of a workflow ("logged, assigned, fixed or rejected")."""
    return len(values) >= 3 and sum(bool(re.search(r"(?:ed|en|ing)$", v.split()[0].lower())) for v in values if v) >= 2


class EntityReader(FlowReader):
    """The entity half of the reader."""

    def read_entities(self) -> None:
        by_catalog: dict[str, str] = {}
        last_counted: EntityMention | None = None
        self.join_flows()
        self.spread_over()
        self.devices_in_places()
        for m in entity_mentions(self.sents, self.catalog, self.context):
            if m.count is None and any(a <= m.pos < b for a, b in self.facts[m.sentence].used):
                continue  # "each has a site": an attribute, not an entity type
            thing = self.facts[m.sentence].per_thing
            if thing and singular(m.words.split()[-1].lower()) != singular(thing.split()[-1].lower()):
                continue  # "per booking: number of sessions (1-8, ...)": a measurement, not a count of sessions
            gap = self.sents[m.sentence][last_counted.pos + len(last_counted.words): m.pos] if last_counted and \
                last_counted.sentence == m.sentence and m.count is None else None
            if gap is not None and re.fullmatch(r"\s+(?:with|having|equipped with|fitted with)\s+(?:\w+\s+)?", gap, re.I):
                self.alias(by_catalog.get(last_counted.catalog_id or "", entity_name(last_counted)), m)
                continue  # "200 households with smart meters": one meter per household, one entity
            if m.count:
                last_counted = m
            name = by_catalog.get(m.catalog_id or "", entity_name(m))
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
                how = f"catalog entity '{m.catalog_id}' (score {m.score:.2f})" if arch else \
                    set_aside(self.catalog, "entities", m.words, self.context)
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
        self.flow_owners()
        self.subjects()
        self.drop_non_things()
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
        self.flow_counts()
        self.per_owners()
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
            cands = [c for c in index(self.catalog, "entities").lexical(words) if c.score >= 0.8
                     and accept(self.catalog, "entities", c.id, c.words, self.context, c.said)[0]]
            name = entity_name(EntityMention(i, 0, words, None, 0.0))
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
            if f.flow is not None and f.states and self.owner[i] and self.entities[self.owner[i]].kind == "lifecycle":
                continue  # its subject was read with the workflow (reader_flows)
            if f.subject_list:
                words, values = f.subject_list
                owner = self.head_owner(words)
                if not owner and _steps(values) and not any(e.kind == "lifecycle" for e in self.entities.values()):
                    owner = self.new_lifecycle(words)  # "A request is logged, assigned, fixed or rejected": a workflow
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
            status = re.match(r"^\s*(?:the\s+|each\s+|every\s+)?([\w-]+)(?:'s)?\s+(?:status|state|mode)s?\b", s, re.I)
            if f.states and status and self.head_owner(status.group(1)):
                self.owner[i] = self.head_owner(status.group(1))  # "Pad status: public skate, ..., or closed"
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
            cands = [c for c in index(self.catalog, "entities").lexical(m.group(1)) if c.score >= 0.8
                     and accept(self.catalog, "entities", c.id, c.words, self.context, c.said)[0]]
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
            attr = best_match(self.catalog, "attributes", m.group(1), self.semantic, context=self.context)
            values = [v.strip() for v in split_items(re.sub(r"^\s*(?:is|are|can be|may be|either)\s+(?:either\s+)?", "",
                                                              f.state_words, flags=re.I))]
            if (attr and attr.score >= 0.9) or all(v[:1].isupper() for v in values):
                f.items.append(("colon", Item(words=m.group(1), raw=f.state_words, values=values)))
                f.states, f.state_ends = [], []  # "breed is Holstein or Jersey": an attribute, not states
                continue
            if any(x.flow is not None and x.states for x in self.facts) and not re.search(r"\bthen\b", s, re.I) and \
                    not any(re.search(r"(?:ed|ing)$", v.split()[0].lower()) or v.split()[0].lower() in PARTICIPLES
                            for v in values if v.split()):
                f.items.append(("colon", Item(words=m.group(1), raw=f.state_words, values=values)))
                f.states, f.state_ends = [], []  # "Species is dog, cat or small animal" beside a workflow: a kind
                continue
            name = snake("_".join(m.group(1).lower().split()[:-1] + [head]))
            arch = self.catalog.entity(cands[0].id) if cands else None
            self.entities[name] = EntityDraft(name=name, plural=plural(name), words=m.group(1),
                                              catalog_id=arch.id if arch else None,
                                              score=cands[0].score if cands else None, kind="lifecycle")
            self.evidence[f"entity {name}"] = f"'{m.group(1)}' (subject of a state list) → " + (
                f"catalog entity '{arch.id}'" if arch else "no catalog entity matched")
            self.owner[i] = name

    def new_lifecycle(self, words: str) -> str:
        """A countable thing the text walks through named steps, with no catalog entry: an event log of its own."""
        head = [w for w in re.findall(r"[a-z0-9]+", words.lower()) if w not in ("a", "an", "the", "each", "every")]
        name = snake("_".join([*head[:-1], singular(head[-1])])) if head else "item"
        if name not in self.entities:
            self.entities[name] = EntityDraft(name=name, plural=plural(name), words=words, kind="lifecycle",
                                              event_driven=True)
            self.evidence[f"entity {name}"] = f"'{words}' (goes through named steps) → from the text only"
        return name

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
