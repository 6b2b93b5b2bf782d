"""The state of the offline description reader (``tools.describe.understand``) and the word lists
its two halves share: reading entities (``reader_entities``) and placing listed items
(``reader_items``)."""

from __future__ import annotations

import re

from tools.describe.catalog_model import Catalog
from tools.describe.draft import EntityDraft
from tools.describe.extract import snake
from tools.describe.field_context import read_field_context
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
    while len(words) > 1 and words[-1] in NOT_A_THING:  # "donation goes", "construction then": the noun before
        words = words[:-1]
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


EDGE_GLUE = (GLUE_WORDS - {"over", "during", "every", "each", "per", "until", "within"}) | {
    "is", "are", "was", "its", "their", "our", "by", "either", "also", "then", "that", "this", "it", "they", "has", "have",
    "had", "report", "reports", "log", "logs", "record", "records", "send", "sends", "measure", "measures", "track",
    "tracks", "so"}
SPEAKER = {"i", "me", "we", "us", "you", "my", "d", "ll", "ve", "please", "like", "want", "need"}


def item_words(words: str) -> str | None:
    """The words of a listed item without the glue a sentence left at its edges ("phone or" → "phone"); None
    when what is left is no thing to record (the speaker's own words: "I'd like", "give me", or a bare number)."""
    words = re.sub(r"^\s*(?:every|each|per)\s+(?:\d+\s*)?(?:sec(?:ond)?s?|min(?:ute)?s?|hours?|hrs?|days?|weeks?|[smhd]\b)?"
                   r"\s*", "", words, flags=re.I)  # "every 10 sec hydraulic pressure": the cadence is not the name
    toks = re.findall(r"[A-Za-z0-9%°µ³²/.'-]+", words)
    while toks and toks[0].lower() in EDGE_GLUE:
        toks = toks[1:]
    while toks and toks[-1].lower() in EDGE_GLUE:
        toks = toks[:-1]
    low = [t.lower().strip("'") for t in re.findall(r"[A-Za-z0-9]+", " ".join(toks))]
    if not low or set(low) & SPEAKER or all(t.isdigit() for t in low):
        return None
    return " ".join(toks)


NOT_A_THING = EDGE_GLUE | SPEAKER | {"hit", "hits", "raise", "raises", "drop", "drops", "take", "takes", "knock",
                                    "knocks", "go", "goes", "get", "gets", "run", "runs", "be", "been", "being",
                                    "was", "were", "ise", "ises", "s"}


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
        self.context = read_field_context(text, catalog)  # the fields the description is about (issue 29)
        self.sents = sentences(text)
        self.facts: list[SentenceFacts] = [sentence_facts(s, catalog) for s in self.sents]
        self.evidence: dict[str, str] = {"field": self.context.describe()}
        self.not_understood: list[str] = []
        self.entities: dict[str, EntityDraft] = {}
        self.owner: list[str | None] = [None] * len(self.sents)  # the entity each sentence is about
        self.counted_owner = [False] * len(self.sents)

    def drop_non_things(self) -> None:
        """Entities named by a verb or a function word ("is", "hits"): words of a sentence, not things to model;
        the sentences they owned go back to the entity before them, and the reply says what was set aside."""
        for name in [n for n, e in self.entities.items() if set(n.split("_")) <= NOT_A_THING and not e.catalog_id]:
            e = self.entities.pop(name)
            self.not_understood.append(f"'{e.words or name}': a word of a sentence, not a thing to model; set aside")
            self.evidence.pop(f"entity {name}", None)
            self.owner = [None if o == name else o for o in self.owner]
            for other in self.entities.values():
                other.parents = [p for p in other.parents if p != name]

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
            return (0.06 if id_ in usual else 0.0) + (0.03 if m.field in fields | self.context.own else 0.0) + \
                (0.02 if per_event == m.event_level else -0.08 if per_event else -0.04)
        return bonus
