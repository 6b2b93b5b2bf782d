"""Placing what a description lists on its entities: measurements, states, attributes and their
values, narrated steps, parent relations and measurements named outside lists."""

from __future__ import annotations

import dataclasses
import re

from tools.describe.draft import AttributeDraft, EntityDraft, MeasurementDraft
from tools.describe.extract import incident_words, plural, snake
from tools.describe.field_context import accept, set_aside
from tools.describe.match import Match, best_match, index, singular, tokens, unit_fits
from tools.describe.reader_base import (
    GLUE_WORDS,
    PLACE_NOUNS,
    PLACE_PLURALS,
    ReaderBase,
    item_words,
    word_end,
)
from tools.describe.units import parse_unit


class ItemReader(ReaderBase):
    """The item half of the reader."""

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
        if not set(re.findall(r"[a-z]+", it.words.lower())) - GLUE_WORDS:
            return  # "over a" left from "every 15 minutes over a 12 day voyage": no name at all
        words = item_words(it.words)
        if words is None:  # "I'd like two months of that": the speaker, not a thing to record
            self.not_understood.append(f"'{it.raw}': not read as something to record")
            return
        if words != it.words:
            it = dataclasses.replace(it, words=words)
        if any(re.search(rf"\b(?:{pattern})", it.words, re.I) for pattern, _kind in incident_words()):
            return  # "with an outage on a few sites": an incident wish, read by find_incidents
        ents = [c for c in index(self.catalog, "entities").lexical(it.words)
                if accept(self.catalog, "entities", c.id, c.words, self.context, c.said)[0]]
        other = self.head_owner(it.words)
        if verb in ("have", "colon") and other and other != e.name and not it.values:
            if other not in e.parents:  # "each car belongs to a building"
                e.parents.append(other)
                self.evidence[f"parent {e.name}"] = f"'{it.raw}' → {other}"
            return
        if verb == "report" and (snake(it.words) in self.entities or (ents and ents[0].score >= 1.0)):
            return  # "with drivers": an entity, not a value
        m = self.match_measurement(e, it.words, it.unit)
        a = best_match(self.catalog, "attributes", it.words, self.semantic, context=self.context)
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
            self.evidence[f"measurement {e.name}.{name}"] = \
                f"'{it.raw}' → {set_aside(self.catalog, 'measurements', it.words, self.context)}"
            self.not_understood.append(f"'{it.words}': no catalog measurement matched; modelled from its name "
                                       "and unit with generic defaults")

    def match_measurement(self, e: EntityDraft, words: str, unit: str | None):
        """The catalog measurement for the words, also read as "<entity> <words>" ("duration" of a
        ride is a trip duration); a unit pint cannot read rules out partial matches."""
        arch = self.catalog.entity(e.catalog_id) if e.catalog_id else None
        phrases = [words, f"{e.name.replace('_', ' ')} {words}"] + ([f"{arch.name} {words}"] if arch else [])
        best = None
        for i, phrase in enumerate(phrases):
            m = best_match(self.catalog, "measurements", phrase, self.semantic, self.prefer(e), unit=unit,
                           context=self.context)
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
        ent = best_match(self.catalog, "entities", word, context=self.context)
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
        words = item_words(words) or ""
        if not words:
            return
        periodic = [x for x in self.entities.values() if x.kind == "periodic"]
        if e.kind == "lifecycle" and len(periodic) == 1 and re.search(r"\b(?:locat|site|placement|install|mount)", words, re.I) \
                and (periodic[0].cadence or periodic[0].measurements) \
                and not re.search(rf"\b{re.escape(e.words or e.name)}", raw, re.I):
            e = periodic[0]  # "Location type: branch, mall or ..." beside ATMs and withdrawals: where the ATM stands
        match = match or best_match(self.catalog, "attributes", words, self.semantic, context=self.context)
        ent_field = self.catalog.entity(e.catalog_id).field if e.catalog_id else None
        if match and ent_field and self.catalog.attribute(match.id).field not in ("general", ent_field):
            match = None  # a household's "region" is no cloud region
        name = snake(words)[:40]
        if any(a.name == name for a in e.attributes):
            return
        e.attributes.append(AttributeDraft(name=name, values=values or [], words=raw, n_values=n_values,
                                           catalog_id=match.id if match else None, score=match.score if match else None))
        how = f"catalog '{match.id}' (score {match.score:.2f})" if match else \
            set_aside(self.catalog, "attributes", words, self.context)
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
                after = f.text[word_end(f.text, pos, words):].split()[:1]
                if low in named_in_lists or low in " ".join(e.states).replace("_", " ") or low in entity_words or \
                        (after and after[0].lower() in PLACE_NOUNS):  # "a wind farm" names no wind
                    continue
                if any(m.catalog_id == id_ or m.name in (id_, snake(words)) for m in e.measurements) or len(words) < 3:
                    continue
                e.measurements.append(MeasurementDraft(name=snake(words), words=words, catalog_id=id_, score=1.0))
                self.evidence[f"measurement {e.name}.{id_}"] = f"'{words}' named in '{f.text[:60]}' → catalog '{id_}'"
