"""Devices that report from inside places (issue 29): "Card terminals in 40 stores report ...", "14 shops,
each with 2 ovens reporting ...", "55 stores with 3 freezers per store, each logging ...", "3 hospitals each
run 6 analysers; analysers log ...". The thing that reports is the device, the place is its static parent
(with the place's count), and the device's count is the places times the devices per place when both are
stated; the place never takes the device's measurements."""

from __future__ import annotations

import re

from tools.describe.draft import EntityDraft
from tools.describe.extract import plural
from tools.describe.field_context import accept
from tools.describe.match import index
from tools.describe.mentions import REPORT, EntityMention
from tools.describe.reader_base import ReaderBase, entity_name

_VERB = rf"\b(?:{REPORT.split('|with')[0]})\b"
_NOUN = r"[A-Za-z][\w-]*(?:\s[A-Za-z][\w-]*)?"
_PLACE = r"(?:in|at|across|inside|on|within)"
# "Card terminals in 40 stores report", "sensors across 12 buildings log"
_IN_PLACES = re.compile(rf"^\s*(?:the\s+|our\s+|all\s+)?(?P<x>{_NOUN}?s)\s+{_PLACE}\s+(?:each of\s+)?(?:the\s+|our\s+)?"
                        rf"(?:about\s+|around\s+)?(?P<n>\d[\d,]*)\s+(?P<y>[A-Za-z][\w-]*s)\b(?P<rest>.*)$", re.I)
# "14 shops, each with 2 ovens", "3 hospitals each run 6 lab analysers", "8 lines with 12 machines each"
_EACH_WITH = re.compile(rf"(?P<n>\d[\d,]*)\s+(?P<y>[A-Za-z][\w-]*s)\b[,;]?\s+(?:each\s+(?:with|has|have|having|runs?|"
                        rf"operates?|houses?|holds?)\s+(?P<k>\d+)\s+(?P<x>{_NOUN}?s)\b|with\s+(?P<k2>\d+)\s+"
                        rf"(?P<x2>{_NOUN}?s)\s+each\b)", re.I)
# "3 freezers per store", "2 pumps in each station"
_PER_PLACE = re.compile(rf"(?P<k>\d+)\s+(?P<x>{_NOUN}?s)\s+(?:per|in each|at each|for each|in every)\s+(?P<y>[A-Za-z][\w-]*)\b",
                        re.I)


class ContainerReader(ReaderBase):
    """Reads devices inside counted places (see the module docstring)."""

    def devices_in_places(self) -> None:
        for i, s in enumerate(self.sents):
            found = self._in_places(s) or self._each_with(s) or self._per_place(s)
            if found is None:
                continue
            x_words, per, y_words, n = found
            place = self._entity(EntityMention(i, 0, y_words, None, 0.0), "static", n)
            device = self._entity(EntityMention(i, 0, x_words, None, 0.0), "periodic", n * per if per else None)
            if device is None or place is None or device is place:
                continue
            if place.name not in device.parents:
                device.parents.append(place.name)
            self.evidence[f"parent {device.name}"] = f"'{s[:80]}': {device.plural} report from inside the {place.plural}"
            self.owner[i], self.counted_owner[i] = device.name, True

    def _in_places(self, s: str):
        m = _IN_PLACES.match(s)
        if m and re.search(_VERB, m.group("rest"), re.I) and not re.match(r"\s*(?:each|every)\b", m.group("x"), re.I):
            return m.group("x"), None, m.group("y"), int(m.group("n").replace(",", ""))
        return None

    def _each_with(self, s: str):
        m = _EACH_WITH.search(s)
        if m is None:
            return None
        k, x = (m.group("k"), m.group("x")) if m.group("k") else (m.group("k2"), m.group("x2"))
        return x, int(k), m.group("y"), int(m.group("n").replace(",", ""))

    def _per_place(self, s: str):
        m = _PER_PLACE.search(s)
        if m is None:
            return None
        y = m.group("y").lower()
        counted = re.search(rf"(\d[\d,]*)\s+(?:[A-Za-z-]+\s+)?{re.escape(y)}s?\b", self.text, re.I)
        if counted is None:
            return None
        return m.group("x"), int(m.group("k")), counted.group(0).split(maxsplit=1)[1], int(counted.group(1).replace(",", ""))

    def _entity(self, m: EntityMention, kind: str, count: int | None) -> EntityDraft | None:
        name = entity_name(m)
        if not name or name == "entity":
            return None
        if name not in self.entities:
            cands = [c for c in index(self.catalog, "entities").lexical(m.words) if c.score >= 0.8
                     and accept(self.catalog, "entities", c.id, c.words, self.context, c.said)[0]]
            arch = self.catalog.entity(cands[0].id) if cands else None
            self.entities[name] = EntityDraft(name=name, plural=plural(name), words=m.words, count=count, kind=kind,
                                              catalog_id=arch.id if arch else None,
                                              score=cands[0].score if cands else None)
            self.evidence[f"entity {name}"] = f"'{m.words}' → " + (f"catalog entity '{arch.id}'" if arch
                                                                   else "from the text only")
            if count:
                self.evidence[f"count {name}"] = f"{count} ('{m.words}')"
        return self.entities[name]
