"""What one sentence of a description says: lists of reported quantities, state lists and narrated
steps, attributes and their values, cadences and volumes (``SentenceFacts``). Entity nouns are
found by ``tools.describe.mentions``; ``tools.describe.understand`` turns both into a draft.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.describe.catalog_model import Catalog
from tools.describe.extract import find_cadence, snake
from tools.describe.flow_facts import take_flow, take_per_list
from tools.describe.match import index, singular
from tools.describe.mentions import (
    COLON_LIST,
    FILLER_WORDS,
    HAVE,
    KIND_NOUNS,
    LIST_END,
    NOT_STATE,
    QUANTITY_HEADS,
    REPORT,
    STATE_LISTS,
    TIME_WORDS,
)
from tools.describe.phrases import Item, parse_item, split_items
from tools.describe.workflow import Flow


@dataclass
class SentenceFacts:
    """What one sentence says."""

    text: str
    items: list[tuple[str, Item]] = field(default_factory=list)  # (verb kind: report|have|colon, item)
    states: list[str] = field(default_factory=list)
    state_words: str = ""
    state_ends: list[str] = field(default_factory=list)  # the last step or the final "X or Y" alternatives
    subject_list: tuple[str, list[str]] | None = None  # "<noun> is A or B": decided by the reader
    per: list[str] = field(default_factory=list)  # "per region", "by tariff"
    across: list[tuple[str, int]] = field(default_factory=list)  # "across 4 zones"
    cadence: str | None = None
    cadence_words: str = ""
    used: list[tuple[int, int]] = field(default_factory=list)  # character spans consumed
    flow: Flow | None = None  # a workflow the sentence tells (tools.describe.workflow)
    per_thing: str = ""  # "Per load: net weight ...": the thing its measurements are of (tools.describe.per_lists)


def _participle(verb: str) -> str:
    """'request' → 'requested', 'accepts' → 'accepted', 'arrives' → 'arrived'."""
    v = verb.lower()
    v = v[:-1] if v.endswith("s") and not v.endswith("ss") else v
    return v + "d" if v.endswith("e") else v + "ed"


_STEP_VERBS = {"request", "order", "book", "submit", "place", "create", "open", "start", "accept", "arrive", "join",
               "call", "file", "apply", "enter", "begin", "register", "sign", "check", "pay", "reserve", "buy"}


def _narrated_steps(text: str) -> list[str]:
    """Steps told as clauses before a state list: "Riders request trips, a driver accepts, the trip
    starts and is then ..." → requested, accepted, started."""
    out = []
    clauses = re.split(r",\s*|\s+and\s+", text.strip())
    if len(clauses) < 2:
        return []
    for clause in clauses:
        w = re.sub(r"^(?:the|a|an|then)\s+", "", clause.strip(), flags=re.I).split()
        if 2 <= len(w) <= 3 and re.fullmatch(r"[a-z]+", w[1]) and "of" not in w and (
                w[1].endswith("s") and w[1] not in ("is", "has", "was", "this", "its") or w[1] in _STEP_VERBS):
            out.append(_participle(w[1]))
    return out


def _strip_lead(item: str) -> str:
    """'then are admitted' → 'admitted'; 'it is mishandled' → 'mishandled'."""
    item = item.strip(" ()")
    while True:
        new = re.sub(r"^(?:then|finally|eventually|either|is|are|be|get|gets|reported|marked|it|they|and|or|a|an|"
                     r"(?:can be |may be )?(?:in )?one of:?|"
                     r"the|as|goes|go|gets|becomes|some|sometimes|ends? (?:as|in|up)|finish(?:es)? as)\s+",
                     "", item, flags=re.I)
        if new == item:
            return item
        item = new


def _masked(s: str) -> str:
    """``s`` with commas and spaces inside brackets hidden, so list ends never fall inside "(max 32, ...)"."""
    return re.sub(r"[(\[][^)\]]*[)\]]", lambda m: m.group(0).replace(",", "\x00").replace(" ", "\x01").replace(";", "\x02"), s)


def sentence_facts(s: str, catalog: Catalog) -> SentenceFacts:
    """Lists, states, attributes and cadence of one sentence."""
    f = SentenceFacts(text=s)
    masked = _masked(s)
    roles = index(catalog, "roles")
    f.cadence, f.cadence_words = find_cadence(s)
    for p in STATE_LISTS:
        m = re.search(p, re.sub(r"\s*\((?!\s*or\b)[^)]*\)", "", re.sub(r"\(\s*or\s+([^)]*)\)", r", or \1", s)), re.I)
        if not m:
            continue
        listed = re.sub(r"\s+by\s+(?:the\s+)?[\w-]+(?:\s+or\s+(?:the\s+)?[\w-]+)?(?=\s*(?:,|$|;))", "", m.group("list"))
        listed = re.split(r"\s+(?:states?|status(?:es)?|modes?|stages?)\b|\)|,?\s+(?:with|where|when|while|depending|"
                          r"every|each|per|(?:over|for|during)\s+(?:\d|a |an |one |the (?:next|last|past))|and (?:report|send|they|it|each))\b",
                          listed, maxsplit=1, flags=re.I)[0]
        if p is STATE_LISTS[-1] and re.search(rf"\b{KIND_NOUNS}\s*$", s[: m.start()], re.I):
            continue  # "room type is standard, deluxe or suite": values of an attribute
        lead = re.match(r"^\s*(?:the|a|an|each|all)?\s*[\w-]+\s+([a-z]+),\s*$", s[: m.start()], re.I)
        listed = f"{lead.group(1)}, {listed}" if lead and p is STATE_LISTS[-1] else listed  # "Patients arrive, are ..."
        if p is STATE_LISTS[-1] and not lead:
            steps = _narrated_steps(s[: m.start()])
            listed = ", ".join([*steps, listed]) if steps else listed
        parts = re.split(r"\s*(?:->|→|=>|>)\s*", listed) if re.search(r"->|→|=>|>", listed) else split_items(listed)
        items = [_strip_lead(i) for i in parts]
        items = [re.sub(r"\s+(?:on|to|at|into|onto|from|by|with|in the|at the|for)\s+.*$", "", i)
                 if len(i.split()) > 3 or (len(i.split()) > 2 and not re.search(r"\bfor\b", i)) else i
                 for i in items]  # "loaded on the aircraft" is the state "loaded"; "out for delivery" stays
        items = [i for i in items if i]
        if p is STATE_LISTS[COLON_LIST] and not any(
                r.id in ("success", "failure", "cancelled") for i in items for m2 in roles.lexical(i)[:1]
                for r in catalog.roles if r.id == m2.id and m2.score >= 0.9):
            continue  # "tariff plan: standard, economy 7 or time-of-use" are values, not states
        if len(items) >= 2 and all(1 <= len(i.split()) <= 4 for i in items) and not NOT_STATE.search(items[0]) and \
                not any(re.search(r"\d", i) for i in items) and \
                (len(items) >= 3 or p is not STATE_LISTS[-1] or any(roles.lexical(i)[:1] and roles.lexical(i)[0].score >= 0.9
                                                                for i in items)):
            f.states = list(dict.fromkeys(snake(i) for i in items))
            f.state_words = m.group(0)[: m.start("list") - m.start() + len(listed)]
            tail = re.split(r",?\s+or\s+", listed)
            if len(tail) > 1:  # "..., then completed, failed or cancelled": the alternatives that end a lifecycle
                lead = re.split(r"\b(?:and then|then|and)\s+", tail[0])
                before = split_items(lead[-1]) if len(lead) > 1 else split_items(tail[0])[-1:]
                ends = [i for i in items if any(i and i in part for part in [*before, *tail[1:]])]
                f.state_ends = [snake(i) for i in ends if snake(i) in f.states]
            else:
                f.state_ends = f.states[-1:]
            f.used.append((m.start(), m.start("list") + len(listed)))
            break
    take_flow(f, s)
    take_per_list(f, s)
    for no in re.finditer(r"\b([a-z]+(?:\s[a-z]+)?)\s+(?P<link>(?:of|is|:)\s+)?((?:\d+,\s*)+\d+,?\s+(?:or|and)\s+"
                          r"\d+)\s*([a-z]+)?", s, re.I):
        if not no.group("link") and not re.search(r"\band\s+$", s[: no.start()]):
            continue  # without "of"/"is", only "... and max power 22, 50 or 150 kW"
        unit = f" {no.group(4)}" if no.group(4) else ""  # "term of 12, 24, 36 or 60 months": options
        f.items.append(("colon", Item(words=re.sub(r"^(?:a|an|the|and|or)\s+", "", no.group(1)), raw=no.group(0),
                                      values=[f"{v}{unit}" for v in re.findall(r"\d+", no.group(3))])))
        f.used.append(no.span())
    each = re.match(r"^\s*(?:each|every)\s+([a-z][\w-]*)\s+is\s+(?:a|an|either)?\s*([^,;]+?(?:,\s*[^,;]+?)*,?\s+or\s+[^,;]+)$",
                    s, re.I)
    known = [i for i in f.states if roles.lexical(i.replace("_", " "))[:1] and
             roles.lexical(i.replace("_", " "))[0].score >= 0.9]
    plain = re.match(r"^\s*(?:the|its|their)\s+[a-z][\w-]*\s+(?:is|are)\s+(?:either\s+)?[^,;]+(?:,\s*[^,;]+)*,?\s+or\s+"
                     r"[^,;]+$", s, re.I)
    steps = sum(x.endswith("ed") or x.endswith("ing") for x in f.states) >= 2 or re.search(r"\bthen\b", s, re.I)
    if (each or plain) and f.states and not known and not steps:  # no value is a state anything is in: kinds
        f.states, f.state_ends, f.state_words = [], [], None
    kinds = each and not f.states and sum(v.strip().endswith("ed") for v in split_items(each.group(2))) < 2
    if kinds:
        # "Each station is urban background, suburban or roadside": a kind of station
        f.items.append(("colon", Item(words="type", raw=s, values=[_strip_lead(v) for v in split_items(each.group(2))])))
        f.used.append(each.span())
    wh = re.search(r"\bwhether\s+(?:the|a|an|it|they)\s+(?:[a-z]+\s+)?(?:was|is|were|has been|had been|got)\s+"
                   r"([a-z][\w ]{2,40}?)\s*$", s, re.I)
    if wh:  # "whether the claim was referred for fraud investigation": a yes/no attribute
        f.items.append(("colon", Item(words=wh.group(1), raw=wh.group(0), values=["yes", "no"])))
        f.used.append(wh.span())
    pr = re.search(r"\b(P|S|SEV|Sev|Tier )\s?(\d)\s*(?:-|–|to)\s*\1?\s?(\d)\b", s)
    if pr and int(pr.group(2)) < int(pr.group(3)) <= 9:  # "P1-P4": a priority with its levels
        word = {"P": "priority", "S": "severity", "SEV": "severity", "Sev": "severity"}.get(pr.group(1), "tier")
        f.items.append(("colon", Item(words=word, raw=pr.group(0), values=[
            f"{pr.group(1).strip()}{i}" for i in range(int(pr.group(2)), int(pr.group(3)) + 1)])))
        f.used.append(pr.span())
    clauses = re.split(r",?\s+and\s+(?=(?:the|its|their|a|an)\s+[a-z][\w-]*(?:\s[a-z][\w-]*)?\s+(?:is|are)\s)", s,
                       maxsplit=1, flags=re.I)
    if not f.states and len(clauses) == 2:  # the second list is one more attribute of the same subject
        sl2 = re.match(r"^\s*(?:the|its|their|a|an)\s+([a-z][\w-]*(?:\s[a-z][\w-]*)?)\s+(?:is|are)\s+(?:either\s+)?"
                       r"([^,;]+?(?:,\s*[^,;]+?)*,?\s+or\s+[^,;]+)$", clauses[1], re.I)
        if sl2:
            f.items.append(("colon", Item(words=sl2.group(1), raw=clauses[1], values=[
                _strip_lead(v) for v in split_items(sl2.group(2))])))
            f.used.append((len(clauses[0]), len(s)))
            s = clauses[0]
    if not f.states and not kinds:  # "breed is Holstein or Jersey": states of an entity or values of an attribute
        sl = re.match(r"^\s*(?:the|a|an|each|every|its|their)?\s*([a-z][\w-]*(?:\s[a-z][\w-]*)?)\s+(?:is|are)\s+"
                      r"(?:either\s+)?([^,;]+?(?:,\s*[^,;]+?)*,?\s+or\s+[^,;]+)$", s, re.I)
        if sl:
            f.subject_list = (sl.group(1), [_strip_lead(v) for v in split_items(sl.group(2))])
            f.used.append(sl.span())
    for m in re.finditer(rf"\b((?:[a-z]+\s){{0,2}}?{KIND_NOUNS})\s+(?:is\s+|of\s+|either\s+)?"
                         r"((?:[\w-]+\s){0,2}?[\w-]+(?:,\s*(?:[\w-]+\s){0,2}?[\w-]+)*,?\s+or\s+(?:[\w-]+\s?){1,3})", s, re.I):
        if any(a <= m.start() < b for a, b in f.used):
            continue
        vals = [v.strip(" '\"") for v in split_items(m.group(2))]
        kind_word = m.group(1).split()[-1].lower()
        if any(v.lower().startswith(kind_word + " ") for v in vals):  # "type 1 or type 2"
            vals = [v if v.lower().startswith(kind_word + " ") else f"{kind_word} {v}" for v in vals]
        f.items.append(("colon", Item(words=re.sub(r"^(?:(?:has|have|with|and)\s+)?(?:the|a|an|its|their)\s+", "",
                                                   m.group(1).strip(), flags=re.I),
                                      raw=m.group(0), values=vals)))
        f.used.append(m.span())
    for m in re.finditer(r"\b([a-z][\w -]{2,40}?)\s*:\s*([^:;.]+?(?:,|\bor\b)[^:;.]+)$", s, re.I):
        if re.search(r"states?|status|modes?|stages?|one of|can be|may be", m.group(1), re.I) or \
                any(a <= m.start() < b for a, b in f.used):
            continue
        name = re.split(r"\b(?:has|have|with|is|are|carries|gets)\s+(?:a|an|one|its|their)?\s*", m.group(1))[-1]
        name = re.sub(r"\s+(?:per|of each|for each|by)\s+[\w-]+$", "", name)  # "crop per greenhouse"
        values = re.split(r",?\s+and\s+(?:a|an|the|its|their)\s+", m.group(2), maxsplit=1)[0]
        if any(len(v.split()) > 3 or re.search(r"\d{2,}", v) for v in split_items(values)):
            continue  # "Our build farm: 80 CI runners report ...": a sentence, not a value list
        f.items.append(("colon", Item(words=name.strip(), raw=m.group(0),
                                      values=[v.strip(" '\"") for v in split_items(values)])))
        f.used.append((m.start(), m.start(2) + len(values)))
        rest = m.group(2)[len(values):]
        if rest.strip():  # ", and a region per household (north, midlands, south)"
            it = parse_item(re.sub(r"^,?\s*and\s+", "", rest.strip()))
            if it.words:
                f.items.append(("have", it))
    for kind, p in (("report", rf"\b(?:{REPORT})\s+(?:(?:their|its|the|a|an)\s+)?"),
                    ("have", rf"\b{HAVE}\s+(?:(?:a|an|one|its|their)\s+)?")):
        for verb in re.finditer(p, s, re.I):  # each verb on its own: a skipped "with" must not hide "reporting"
            lead = re.match(r"\s*(?:every|each|once an?)\s+[^:;,]{1,25}:\s*", s[verb.end():], re.I)  # "reports every 30 min:"
            m = re.compile(rf"(?P<list>.+?){LIST_END}", re.I).match(masked, verb.end() + (lead.end() if lead else 0))
            if m is None or any(a <= verb.start() < b for a, b in f.used):
                continue
            before = s[: verb.start()].split()[-1:]
            after = s[verb.end():].split()[:1]
            b = before[0].lower() if before else ""
            noun = b in ("the", "a", "an", "per", "of", "bedside", "patient", "remote", "heart", "our", "their") or (
                b in ("each", "every") and (not after or re.fullmatch(rf"(?:{REPORT}|is|are|has|have)", after[0], re.I)))
            if kind == "report" and (noun or (after and re.fullmatch(r"(?:in|at|on|across|for|of|are|is)[:,]?|[,:]",
                                                                      after[0], re.I))):
                continue  # "each monitor records", "monitors in a ward": a noun ("each logs air temperature": a verb)
            if kind == "report" and verb.group(0).lower().startswith("with") and re.search(
                    rf"\b(?:{REPORT.split('|with')[0]})\b", m.group("list"), re.I):
                continue  # "households with smart meters reporting X": the list is after "reporting"
            if any(a <= m.start("list") < b for a, b in f.used):
                continue  # "has a priority P1, P2 or P4": read already
            cut = min([a for a, _b in f.used if m.start("list") <= a < m.end("list")] + [m.end("list")])
            listed = re.sub(r"[\s,]*(?:and|or)?\s*(?:the|a|an)?\s*$", "", s[m.start("list"): cut])
            for raw in split_items(listed):
                it = parse_item(raw)
                if it.words and len(it.words.split()) <= 5 and it.words.lower() not in FILLER_WORDS:
                    f.items.append((kind, it))
            f.used.append((verb.start(), m.end()))
    if not any(k == "report" for k, _ in f.items) and not f.states:  # terse: "freezers, temp every 5 min, 2 weeks"
        for chunk in re.split(r"\s*[,;:]\s*|\s+-\s+|\s+and\s+", s):
            start = s.find(chunk)
            for _ in range(3):  # "temp around -20 °C every 5 minutes for 2 weeks" → "temp around -20 °C"
                chunk = re.sub(r"(?:^|\s+)(?:(?:every|for|over|during)\s+(?:\d+\s*[a-z]+|an?\s+[a-z]+|minute|hour|day|second)"
                               r"|logged|reported|recorded|measured|sent|collected|captured|tracked)$", "", chunk, flags=re.I)
            # "... set around -20 °C for frozen cargo or +4 °C for chilled cargo": the first level is the level
            chunk = re.sub(r"(\d\s*(?:°\s*[CF]|%|[A-Za-z/]+)?)\s+(?:for|in|on|during|when|or)\s+.*$", r"\1", chunk)
            if chunk and not any(a <= start < b for a, b in f.used):
                it = parse_item(chunk)
                if it.words and len(it.words.split()) <= 4:
                    quantity = re.search(rf"\b(?:{QUANTITY_HEADS})$", it.words, re.I)
                    f.items.append(("quantity" if quantity else "loose", it))
    for m in re.finditer(r"\b(?:per|by|for each|for every|broken down by|grouped by|split by)\s+([a-z][\w-]*(?:\s+(?!(?:we|i|you|"
                         r"they|per|record|log|track)\b)[a-z][\w-]*)?)", s if not f.per_thing else "", re.I):
        word = m.group(1).lower()
        if re.search(r"[\d$€£%]\s*(?:[a-z]+\s+)?$", s[: m.start()]) or re.match(r"[a-z]{3,}ing\b", word):
            continue  # "€4.50 per metre", "by paying just the interest": a rate or a way, no breakdown
        if word.split()[0] in ("we", "you", "they", "it", "one", "them", "us", "of", "the", "a", "an"):
            continue  # "for each we store": no breakdown
        if m.group(0).lower().startswith("by ") and (word.split()[0] in ("a", "an", "the", "their", "its") or
                                                      re.search(r"\b(?:seen|driven|caused|run|made|handled)\s+by", s[:m.end()],
                                                                re.I)):
            continue  # "seen by a doctor" is no breakdown
        first = singular(word.split()[0])
        if first not in TIME_WORDS and not re.match(r"\d", word):
            f.per.append(first if first in ("region", "site", "zone", "city", "country") else word)
    for m in re.finditer(r"\b(?:across|in|over|from)\s+(\d+)\s+([a-z][\w-]*s)\b", s, re.I):
        head = singular(m.group(2).lower())
        if head not in TIME_WORDS:
            f.across.append((head, int(m.group(1))))
    return f
