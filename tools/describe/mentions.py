"""Find the entity nouns a description names (counted, "40 wind turbines", or from the catalog), and
the word lists both this and ``tools.describe.sentence_facts`` (what each sentence says) use.

Pure text work: the catalog is only used to recognise nouns. ``tools.describe.understand`` turns
the mentions into a draft.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.describe.catalog_model import GROUP_OF, Catalog
from tools.describe.field_context import FieldContext, accept, token_fields
from tools.describe.match import index, singular, tokens
from tools.describe.units import parse_unit

NOT_ENTITIES = {"value", "reading", "measurement", "metric", "event", "row", "record", "percent", "degree",
                "time", "unit", "level", "number", "bottle", "item", "step", "ms", "kw", "star", "point", "second",
                "digit", "decimal", "place", "hour", "minute", "day", "week", "month", "year", "times"}
TIME_WORDS = {"second", "minute", "hour", "day", "week", "month", "year", "sec", "min", "hr", "ms", "wk", "wks",
              "hrs", "mo", "mos", "yr", "yrs", "mins", "secs", "days", "weeks", "months", "night",
              "morning", "evening", "shift", "time"}
REPORT = (r"reporting|reports?|send(?:s|ing)?|stor(?:e|es|ing)|keep(?:s|ing)?|emit(?:s|ting)?|measur(?:e|es|ing)|track(?:s|ing)?|"
          r"record(?:s|ing)?|collect(?:s|ing)?|log(?:s|ging)?|monitor(?:s|ing|ed)?|stream(?:s|ing)?|"
          r"captur(?:e|es|ing)|produc(?:e|es|ing)|push(?:es|ing)?|publish(?:es|ing)?|with(?!\s+(?:about\s+|around\s+)?\d)|readings? of|"
          r"metrics? (?:like|such as|for)|telemetry (?:like|such as|for|of)|data on")
KIND_NOUNS = (r"(?:type|class|category|tier|plan|kind|mode|channel|priority|segment|grade|model|brand|level|size|"
              r"method|colou?r|severity)")
HAVE = (r"(?:each|every)\s+(?:[a-z-]+\s+){0,2}?(?:has|have|is assigned|carries|comes with|belongs to|is in|sits in|"
        r"uses|consumes|records|logs|costs|weighs|produces|delivers)")
QUANTITY_HEADS = (r"temperature|temp|pressure|flow|level|speed|rate|count|time|duration|weight|voltage|current|"
                  r"power|humidity|height|period|length|depth|distance|altitude|concentration|consumption|usage|load|"
                  r"throughput|latency|frequency|value|amount|total|size|volume|charge|output|intensity|ratio|score")
FILLER_WORDS = {"for", "over", "during", "every", "each", "per", "and", "or", "with", "in", "at", "it", "they", "them"}
LIST_END = (r"(?=,?\s+(?:once|twice|every|each|per(?!\s+(?:second|minute|hour|day|sec|min|hr|kwh|km|mile|unit)s?\b)|over|for|during|across|at|hourly|daily|from|while|that|which|where|when|"
            r"so|and (?:they|it|each|every|go|goes|are|is|can|have|has)|they|it)\b|\s*[;.](?!\d)|$)")
STATE_LISTS = [
    r"(?P<list>[a-z][\w ]*?(?:\s*(?:->|→|=>|>)\s*[a-z][\w ]*?){2,})(?=\s*[,;.]|$)",
    r"\b(?:go(?:es)?|going|move|moves|moving|cycle|cycles|transition(?:s|ing)?|switch(?:es)?|pass(?:es)?|progress(?:es)?|flow)\s+"
    r"(?:through|between|among|from)\s+(?:the\s+)?(?:states?\s+|stages?\s+|statuses\s+)?(?P<list>.+)",
    r"\b(?:states?|status(?:es)?|modes?|stages?|lifecycle|phases?)\s*(?::|are|is|include|includes|like|such as|=|\(|"
    r"(?=\s[a-z_-]+(?:\s[a-z_-]+)?\s*/\s*[a-z_-]+(?:\s[a-z_-]+)?\s*/))\s*(?P<list>.+)",
    r"\)?:\s*(?P<list>[a-z_-]+(?:\s[a-z_-]+){0,3}(?:,\s*(?:then\s+)?[a-z_-]+(?:\s[a-z_-]+){0,3}){2,}.*)",
    r"\b(?:are|is|can be|may be|get|gets|become|becomes|be|end up|ends? up|go|goes)\s+(?:either\s+|in one of\s+|marked\s+|set to\s+)?"
    r"(?P<list>[a-z_-]+.*(?:,|\bor\b|\band\b|\bthen\b).*)",
]
COLON_LIST = 3  # index of the "...: booked, checked in, ..." pattern (states only when some of them end a lifecycle)
NOT_STATE = re.compile(r"^(?:reporting|reported|measured|recorded|logged|sent|tracked|monitored|made|used|"
                        r"the|a|an|each|every|per|at)\b|\d", re.I)
EVENT_WORDS = re.compile(r"\b(?:events?|event log|logs?|audit|lifecycle|status changes?|state changes?|"
                         r"each step|every step|timeline|history of)\b", re.I)


@dataclass
class EntityMention:
    """An entity noun: where, its words, the catalog id (None if unknown) and a stated count."""

    sentence: int
    pos: int
    words: str
    catalog_id: str | None
    score: float
    count: int | None = None
    per_day: bool = False


def _physical_unit(word: str) -> bool:
    """Whether a word is a unit of some dimension ("kwh", "db"), not a countable noun pint also
    knows ("bag", "bale")."""
    u = parse_unit(word, strict=True)
    return u is not None and not u.dimensionless


def _in_context(ents, id_: str | None, words: str, said: list[str]) -> str | None:
    """The archetype a bare head noun means in this text: "orders" on a "food delivery" platform are food
    delivery orders (an archetype with a synonym ending in the same noun, and another synonym of several
    words that the text says as it is)."""
    t = [singular(w.lower().replace("-", "")) for w in re.findall(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*", words)]
    if not t:
        return id_
    grams = {tuple(said[i:i + n]) for n in (2, 3) for i in range(len(said) - n + 1)}
    heads = {i for k, ids in ents.by_phrase.items() if len(k) > len(t) and k[-1] == t[-1] for i in ids}
    stated = [(len(k), i) for k, ids in ents.by_phrase.items() if len(k) >= 2 and k in grams for i in ids if i in heads]
    return max(stated)[1] if stated else id_


def entity_mentions(sentences: list[str], catalog: Catalog, context: FieldContext | None = None) -> list[EntityMention]:
    """Counted nouns ("40 wind turbines", "about 500 trips a day") and catalog entity nouns; with ``context``
    (the description's fields) a catalog entity of another field needs more than a shared word."""
    ents = index(catalog, "entities")

    def fits(id_: str, words: tuple[str, ...], exact: bool) -> bool:
        return accept(catalog, "entities", id_, words, context, exact)[0]
    out: list[EntityMention] = []
    said = [singular(w.lower().replace("-", "")) for w in re.findall(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*",
                                                                     " ".join(sentences))]
    for si, s in enumerate(sentences):
        counted = [(m.group(1), m.group(2), m.start(2), bool(m.group(3))) for m in re.finditer(
            r"\b(?:about\s+|around\s+|roughly\s+|~\s*)?(\d[\d,]*)\s*\+?\s+((?:(?!(?:with|of|in|on|for|at|from|per|and|or|"
            r"to|by)\b)[A-Za-z][\w-]*\s+){0,3}?(?:[A-Za-z][\w-]*?s|people|children|cattle|sheep|staff))\b"
            r"(\s+(?:a|per|each)\s+day|\s*/\s*day\b)?", s)]
        counted += [(m.group(2), m.group(1), m.start(1), False)
                    for m in re.finditer(r"\b((?:[A-Za-z][\w-]*\s)?[A-Za-z][\w-]*s)\s*(?:[x×]\s*|\()(\d+)\)?", s)]
        # "beehives x20", "wave buoys (12)"
        for number, words, start, per_day in counted:
            at = s.rfind(number, 0, start)
            low = re.search(r"(\d[\d,]*)\s*(?:to|-|–|and)\s*(?:about\s+|around\s+|~\s*)?$", s[:at]) if at >= 0 else None
            if at >= 0 and (re.search(r"(?:\bup to|\bat most|\bmax(?:imum)?|\bas many as|\bno more than)\s*"
                                      r"(?:about\s+|around\s+|~\s*)?$", s[:at], re.I) or low and int(
                    number.replace(",", "")) > 4 * max(1, int(low.group(1).replace(",", "")))):
                continue  # "(25 to 20,000 pieces)", "up to 600 passengers": the size of a quantity, not how many things
            more = re.match(r"((?:\s+(?!(?:is|has|was|its|this|as|us|ms|does|goes|uses|reports|sends)\b)[a-z][\w-]*s\b){1,2})",
                            s[start + len(words):], re.I)
            if more and not re.search(rf"\b(?:{REPORT.split('|with')[0]})\b", more.group(1), re.I):
                words += more.group(1)  # "120 Kubernetes pods": the head noun is the last plural
            last = words.split()[-1]
            head = singular(last.lower())
            single = len(words.split()) == 1  # "200 meters" is a length, "200 smart meters" are meters
            if head in TIME_WORDS or single and not per_day and (
                    (_physical_unit(head) and not last[0].isupper()) or head in NOT_ENTITIES):  # "20000 bags a day" are bags
                continue
            if not single and _physical_unit(words.split()[0].lower()) and words.split()[0].lower() not in ("smart",):
                continue  # "75 kW motors", "45 m units": a size of the thing, not how many there are
            cands = ents.lexical(words)
            head = singular(words.split()[-1].lower().replace("-", ""))
            if not any(c.score >= 0.8 for c in cands) and ents.by_phrase.get((head,)):
                cands = [c for c in cands if c.id in ents.by_phrase[(head,)]]  # "long-haul trucks" are trucks
                cands = [type(c)(c.id, 0.8, f"head noun '{head}'", (head,)) for c in cands[:1]]
            cands = [c for c in cands if c.score >= 0.8 and (fits(c.id, c.words or tuple(tokens(words)), c.said) or (
                c.how.startswith("head noun") and len({GROUP_OF.get(f) for f in token_fields(catalog).get(head, ())}) == 1))]
            picked = _in_context(ents, cands[0].id, words, said) if cands else None
            out.append(EntityMention(si, start, words, picked, cands[0].score if cands else 0.0,
                                     int(number.replace(",", "")), per_day))
        for pos, id_, words in ents.mentions(s):
            if not fits(id_, tuple(tokens(words)), True):
                continue  # a prison's "cells" are no radio cells: the word alone does not say the field
            start = _char_pos(s, pos)
            if any(e.sentence == si and (e.catalog_id == id_ or e.pos <= start < e.pos + len(e.words)) for e in out):
                continue
            if _physical_unit(words) and not words[0].isupper() or len(words) < 2:
                continue  # "dB" is a unit, not a database
            nxt = s[start + len(words):].split()[:1]
            if nxt and re.fullmatch(r"(?:api|apis|service|services|system|platform|app|application|gateway|server|"
                                    r"cluster|database|network|portal|engine|website|site|backend)", nxt[0], re.I):
                continue  # "a payments API": the noun only names what the service is for
            plural_word = singular(words.split()[-1].lower()) != words.split()[-1].lower()
            at_start = len(s[:start].split()) <= 2 and re.match(
                r"\s*(?:is|are|has|have|go|goes|can|report|reports|send|sends|move|moves|get|gets|each|arrive|arrives)\b",
                s[start + len(words):], re.I) is not None
            if plural_word or at_start:
                out.append(EntityMention(si, start, words, id_, 1.0))
    out = sorted(out, key=lambda e: (e.sentence, e.pos))
    # "payments API": the first noun only modifies the second (the head), it is no entity of its own
    return [e for e in out if not any(o.sentence == e.sentence and o.pos > e.pos and o.count is None and e.count is None
                                      and sentences[e.sentence][e.pos + len(e.words): o.pos].strip() == ""
                                      for o in out)]


def _char_pos(s: str, word_index: int) -> int:
    words = list(re.finditer(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*", s))
    return words[word_index].start() if word_index < len(words) else 0
