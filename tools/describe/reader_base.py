"""The state of the offline description reader (``tools.describe.understand``) and the word lists
its two halves share: reading entities (``reader_entities``) and placing listed items
(``reader_items``)."""

from __future__ import annotations

import re

from tools.describe.catalog_model import Catalog
from tools.describe.draft import EntityDraft
from tools.describe.extract import snake
from tools.describe.match import SemanticScorer, singular
from tools.describe.mentions import EntityMention
from tools.describe.phrases import sentences
from tools.describe.sentence_facts import SentenceFacts, sentence_facts

PLACE_NOUNS = {"farm", "farms", "park", "parks", "field", "fields", "plant", "plants", "site", "sites", "station",
               "stations", "building", "buildings", "room", "rooms", "house", "houses", "hall", "yard", "shop", "system"}


def word_end(text: str, word_index: int, words: str) -> int:
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


def entity_name(m: EntityMention) -> str:
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
GLUE_WORDS = {"over", "a", "an", "the", "for", "during", "every", "each", "per", "in", "at", "on", "to", "with", "and",
              "or", "of", "from", "until", "within"}


def parse_days(horizon: str | None) -> int | None:
    """Whole days of a horizon like '14d' (None when not stated)."""
    from tools.common.durations import parse_duration

    return max(1, int(parse_duration(horizon) // 86400)) if horizon else None


class ReaderBase:
    """What the reader of one description holds: its sentences and their facts, the entities found
    so far, the sentence owners, the evidence and what was not understood."""

    horizon: str | None = None

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
