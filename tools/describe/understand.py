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
from tools.describe.draft import DomainDraft, EntityDraft
from tools.describe.errors import DescriptionError
from tools.describe.extract import find_horizon, find_incidents, nearest_pack, plural, snake
from tools.describe.incident_reader import split_incidents
from tools.describe.match import SemanticScorer, singular
from tools.describe.phrases import words_to_numbers
from tools.describe.reader_base import NEEDS
from tools.describe.reader_entities import EntityReader
from tools.describe.reader_items import ItemReader


class _Reader(EntityReader, ItemReader):
    """Reads one description (see the module docstring)."""


def understand(description: str, catalog: Catalog, semantic: SemanticScorer | None = None) -> DomainDraft:
    """The draft of a description (see the module docstring); ``DescriptionError`` when it names
    nothing that can be modelled."""
    full = words_to_numbers(" ".join((description or "").split()))
    if not re.search(r"[A-Za-z]{3,}", full):
        raise DescriptionError(f"the description is empty; {NEEDS}")
    # incident sentences are read apart: their verbs are no entities, their counts no fleet sizes
    text, described, vague = split_incidents(full)
    text = text if re.search(r"[A-Za-z]{3,}", text) else full
    r = _Reader(text, catalog, semantic)
    r.horizon, h_words = find_horizon(text)
    r.read_entities()
    if not r.entities:
        raise DescriptionError(f"nothing in '{text[:80]}' names a thing to model; {NEEDS}")
    r.settle_kinds()
    r.read_lists()
    r.scan_measurements()
    r.then_steps()
    r.flow_steps()
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
    if main.catalog_id is None and not main.measurements and not main.states and not main.count and not main.cadence:
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
    for n, inc in enumerate(described, 1):
        ev[f"described incident {n}"] = f"'{inc.text}': " + ", ".join(f"{k} '{v}'" for k, v in inc.words.items())
        if inc.what is None:
            r.not_understood.append(f"incident '{inc.text}': no kind of incident (outage, spike, drift, ...) could be read")
    r.not_understood += [f"sentence '{v}': it asks for something to go wrong but says not what, to which entities "
                         "or when; say e.g. 'on day 3 five pumps go offline for 2 hours'" for v in vague]
    used = {i for i, f in enumerate(r.facts) if f.items or f.states or f.cadence or f.per or f.across}
    used |= {b for _a, b in r.joined}  # a sentence that goes on from a workflow was read into it
    used |= {i for i, s in enumerate(r.sents) if any(e.words and e.words.lower() in s.lower() for e in r.entities.values())}
    for i, s in enumerate(r.sents):
        if i not in used and not any(w in s.lower() for _k, w in incidents) and len(s.split()) > 2:
            r.not_understood.append(f"sentence '{s}': nothing in it was understood")
    name = snake(f"{main.name}_{others[0].name}") if any(o.kind == "lifecycle" for o in others) else main.plural
    return DomainDraft(name=snake(name)[:40], description=full, entity=main, incidents=described, others=others, horizon=r.horizon,
                       incident_hints=[k for k, _ in incidents], nearest_pack=nearest_pack(text), evidence=ev,
                       not_understood=list(dict.fromkeys(r.not_understood)))
