"""Rules for the pieces of a description: the reporting entity (the fallback when no noun is
counted or known to the catalog), cadences ("every 10 minutes", "hourly"), horizons ("over two
weeks"), measurement and state lists, grouping attributes and incident wishes ("an outage", "a
latency spike"), plus the small English helpers (snake, singular, plural, numbers). The reader that
uses them is ``tools.describe.understand``; ``tools.describe.edit`` applies them to review edits.
"""

from __future__ import annotations

import re

from tools.describe.draft import AttributeDraft, MeasurementDraft

NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "hundred": 100, "a dozen": 12, "dozen": 12, "a hundred": 100, "a thousand": 1000,
}
_NUM = r"(\d[\d,]*|a dozen|a hundred|a thousand|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"
_COUNT = r"(\d[\d,]*|a dozen|a hundred|a thousand|" + "|".join(
    w for w in sorted(NUMBER_WORDS, key=len, reverse=True) if w not in ("a", "an", "one")) + r")"
_COLLECTIVE = {"fleet", "group", "set", "collection", "number", "network", "cluster", "array", "bunch", "lot"}
_UNITS = {"s": "s", "sec": "s", "second": "s", "m": "m", "min": "m", "minute": "m", "h": "h", "hr": "h",
          "hour": "h", "d": "d", "day": "d", "w": "w", "week": "w", "wk": "w", "month": "mo", "mo": "mo"}
_TIME_WORDS = {"second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "week", "weeks",
               "month", "months", "sec", "min", "hr"}
_REPORT_VERBS = (r"reporting|reports|report|with|measuring|measure|tracking|track|emitting|emit|sending|send|"
                 r"recording|records|record|collecting|collects|logging|logs|log|monitoring|monitors|streaming|streams|producing")
_LIST_END = (r"(?=\s+(?:every|each|per|by|over|for|during|across|in|at|hourly|daily|minutely|from|on|while|"
             r"that|which|where|when|so)\b|\s*[;.(]|,\s*(?:and\s+)?(?:the|they|it|each|all|every)\b|$)")
# words before a head noun that are not part of the entity's name ("our sensors", "about 40 pumps")
_NOT_MODIFIERS = {"our", "their", "many", "several", "different", "various", "some", "all", "the", "of", "new",
                  "old", "about", "around", "roughly", "approximately", "over", "under"}
CASCADE_WORDS = r"cascad"


def incident_words(in_descriptions: bool = True) -> list[tuple[str, str]]:
    """(regex, kind) for every kind users name, in registry rank order: the one word map of the
    describe reader and the chat (``PatternKind.words``). ``in_descriptions`` leaves out kinds whose
    words in a domain description mean the data's own behaviour ("noisy readings"), and puts
    cascades first (a chat request says "make ... cascade", a grammar of its own)."""
    from tools.patterns.registry import all_kinds

    words = [(k.words, k.name) for k in all_kinds() if k.words and (k.in_descriptions or not in_descriptions)]
    return [(CASCADE_WORDS, "cascade"), *words] if in_descriptions else words
_PACK_WORDS = {
    "iot": r"sensor|device|iot|temperature|humidity|pressure|battery|firmware|meter|pump|turbine|hvac|drone",
    "telecom": r"cell|tower|telecom|link|router|backhaul|latency|packet|jitter|rrc|prb|ue\b|network|5g|lte",
    "observability": r"service|api|pod|kubernetes|k8s|host|server|cpu|memory|request|error rate|p9\d|deploy|"
                     r"container|database|latency",
    "security": r"login|auth|attack|intrusion|malware|firewall|security|breach|compromis|threat|vpn",
    "ecommerce": r"shop|cart|checkout|purchase|order|customer|session|click|product|store|basket",
}


def snake(words: str) -> str:
    """'p95 latency' → 'p95_latency'; 'OOM kills' → 'oom_kills'."""
    s = re.sub(r"[^a-z0-9]+", "_", words.lower()).strip("_")
    return s if s and s[0].isalpha() else f"x_{s}" if s else "value"


_IRREGULAR = {"people": "person", "children": "child", "men": "man", "women": "woman", "mice": "mouse",
              "geese": "goose", "teeth": "tooth", "feet": "foot", "data": "data", "series": "series", "species": "species", "status": "status",
              "bus": "bus", "gas": "gas", "analysis": "analysis"}


def singular(word: str, rules_only: bool = False) -> str:
    """English singular of a lower-case word: turbines → turbine, batteries → battery, people → person.

    Irregular plurals and words that only look plural ('status', 'analysis', 'bus') are known, and a
    final s is kept on words of three letters or fewer. ``rules_only=True`` applies the suffix rules
    alone (a final s dropped from any word over two letters): the names the describe reader gives
    columns, entities and chat targets are made this way, and changing it would rename them.
    """
    if not rules_only and word in _IRREGULAR:
        return _IRREGULAR[word]
    for plural_end, single_end in (("ies", "y"), ("sses", "ss"), ("shes", "sh"), ("ches", "ch"), ("xes", "x")):
        if word.endswith(plural_end) and len(word) > len(plural_end) + 1:
            return word[: -len(plural_end)] + single_end
    keep = ("ss",) if rules_only else ("ss", "us", "is")
    if word.endswith("s") and not word.endswith(keep) and len(word) > (2 if rules_only else 3):
        return word[:-1]
    return word



def plural(word: str) -> str:
    """English plural of a singular noun (last word of a snake_case name)."""
    head = word.rsplit("_", 1)[-1]
    if re.search(r"[^aeiou]y$", head):
        return word[:-1] + "ies"
    if re.search(r"(s|sh|ch|x)$", head):
        return word + "es"
    return word + "s"


def number(text: str) -> int:
    """'40' / '1,000' / 'forty' / 'a dozen' → int."""
    t = text.lower().strip()
    return int(t.replace(",", "")) if t[0].isdigit() else NUMBER_WORDS[t]


def split_list(text: str) -> list[str]:
    """'a, b and c' / 'a, b, or c' / 'a/b/c' → ['a', 'b', 'c'] (trimmed, articles and possessives dropped)."""
    parts = re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*/\s*|\s+as well as\s+", text.strip())
    out = []
    for p in parts:
        p = re.sub(r"^(?:the|their|its|a|an|either|both|some|per-\w+)\s+", "", p.strip(" '\"`"), flags=re.I)
        if p:
            out.append(p)
    return out


def _duration(n: str | None, unit: str) -> str:
    one = singular(unit.lower(), rules_only=True)
    u = _UNITS[one] if one in _UNITS else _UNITS[unit.lower()]
    k = number(n) if n else 1
    return f"{k * 30}d" if u == "mo" else f"{k * 7}d" if u == "w" else f"{k}{u}"


def find_cadence(text: str) -> tuple[str | None, str]:
    """The reporting interval ('10m') and the words it came from."""
    m = re.search(rf"\b(?:every|each|once (?:a|per|every))\s+(?:{_NUM}\s*)?-?\s*"
                  r"(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|s|m|h|d)\b", text, re.I)
    if m:
        return _duration(m.group(1), m.group(2)), m.group(0)
    m = re.search(r"\b(\d+)-(second|minute|hour|day)\b(?!\s+(?:window|horizon|period|history))", text, re.I)
    if m:
        return _duration(m.group(1), m.group(2)), m.group(0)
    for word, value in (("secondly", "1s"), ("minutely", "1m"), ("per minute", "1m"), ("hourly", "1h"),
                        ("per hour", "1h"), ("daily", "1d")):
        if re.search(rf"\b{word}\b", text, re.I):
            return value, word
    return None, ""


def find_horizon(text: str) -> tuple[str | None, str]:
    """How much history ('14d', '61d', '15h') and the words it came from; the rules and what they
    leave out are in ``tools.describe.horizons``."""
    from tools.describe.horizons import read_horizon
    from tools.describe.phrases import words_to_numbers

    return read_horizon(words_to_numbers(text))


def _noun_phrase(words: list[str]) -> tuple[str, str]:
    """(entity name, plural words) from the words of a plural noun phrase, head last."""
    head = singular(words[-1].lower(), rules_only=True)
    name = head
    modifier = words[-2].lower() if len(words) > 1 else ""
    if modifier and modifier not in NUMBER_WORDS and not modifier.endswith("ed") and modifier not in _NOT_MODIFIERS:
        name = f"{modifier}_{head}"
    return snake(name), " ".join(w.lower() for w in words)


def find_entity(text: str) -> tuple[str, int | None, str, str]:
    """(entity name, count, subject words for the spec name, evidence)."""
    counted = next((m for m in re.finditer(rf"\b{_COUNT}\s+((?:[A-Za-z][\w-]*\s+){{0,2}}?[A-Za-z][\w-]*?s)\b", text, re.I)
                    if m.group(2).split()[-1].lower() not in _TIME_WORDS), None)
    subject = re.match(rf"^\s*(?:an?|the|our|my|some)?\s*((?:[\w'-]+\s+){{0,4}}?[\w'-]+?)\s+"
                       rf"(?:of|{_REPORT_VERBS}|that|which|in|on|across|go|going|are|is)\b", text, re.I)
    subject_text = re.sub(rf"^(?:{_COUNT}\s+)+", "", subject.group(1).replace("'s", ""), flags=re.I) if subject else ""
    subject_words = "" if subject_text.lower() in _COLLECTIVE else snake(subject_text)
    per = re.search(r"\b(?:per|for each|for every|by)\s+([a-z][\w-]*)", text, re.I)
    if counted:
        words = counted.group(2).split()
        words = [w for w in words if w.lower() not in ("of", "the")]
        name, _ = _noun_phrase(words)
        return name, number(counted.group(1)), subject_words, counted.group(0)
    if subject:
        words = subject_text.split() or subject.group(1).split()
        last = words[-1].lower()
        is_plural = last.endswith("s") and not last.endswith("ss") and len(last) > 3
        if not is_plural and per and per.group(1).lower() not in _TIME_WORDS:
            return snake(singular(per.group(1).lower(), rules_only=True)), None, subject_words, per.group(0)
        name, _ = _noun_phrase(words[-2:] if len(words) > 1 else words)
        return name, None, subject_words, subject.group(0).strip()
    return "entity", None, "", "default: no entity noun found"


def find_measurements(text: str, entity_words: str) -> tuple[list[MeasurementDraft], str]:
    """What the entity reports, from the list after the first reporting verb."""
    m = re.search(rf"\b(?:{_REPORT_VERBS})\s+(?:(?:their|its|the)\s+)?(.+?){_LIST_END}", text, re.I)
    if not m:
        return [], ""
    items = [i for i in split_list(m.group(1)) if i and len(i.split()) <= 5]
    seen: dict[str, MeasurementDraft] = {}
    for item in items:
        name = snake(item)
        if name not in seen and name != snake(entity_words):
            seen[name] = MeasurementDraft(name=name, words=item)
    return list(seen.values()), m.group(0).strip()


def find_states(text: str) -> tuple[list[str], str]:
    """State names from 'go through a, b and c' / 'are a, b or c' / 'states: a, b, c'."""
    patterns = [
        r"\b(?:go(?:es)?|going|move|moves|cycle|cycles|transition|transitions|switch|switches|pass|passes)\s+"
        r"(?:through|between|among)\s+(?:states?\s+)?(.+?)(?=[;.]|$)",
        r"\b(?:states?|status(?:es)?|modes?)\s*(?::|are|is|include|includes|like|such as|of)\s+(.+?)(?=[;.]|$)",
        r"\b(?:are|is|can be|may be|be)\s+(?:either\s+|in one of\s+)?(.+?(?:,|\bor\b).+?)(?=[;.]|$)",
    ]
    for p in patterns:
        m = re.search(p, text, re.I)
        if not m:
            continue
        listed = re.split(r"\s+(?:states?|status(?:es)?|modes?)\b|,?\s+(?:with|where|when|while|and then|depending)\b",
                          m.group(1), maxsplit=1, flags=re.I)[0]
        items = split_list(listed)
        if len(items) >= 2 and all(1 <= len(i.split()) <= 3 for i in items):
            return list(dict.fromkeys(snake(i) for i in items)), m.group(0).strip()
    return [], ""


def find_attributes(text: str, entity: str) -> list[tuple[AttributeDraft, str]]:
    """Grouping attributes: 'per region', 'by firmware', 'across 4 zones' (not the entity itself)."""
    out: dict[str, tuple[AttributeDraft, str]] = {}
    for m in re.finditer(rf"\b(?:across|in)\s+{_NUM}\s+([a-z][\w-]*s)\b", text, re.I):
        name = snake(singular(m.group(2).lower(), rules_only=True))
        if name != entity and m.group(2).lower() not in _TIME_WORDS:
            k = min(number(m.group(1)), 12)
            out[name] = (AttributeDraft(name=name, values=[f"{name}_{i + 1}" for i in range(k)], words=m.group(0)),
                         m.group(0))
    for m in re.finditer(r"\b(?:per|by|for each|for every|broken down by|grouped by)\s+([a-z][\w-]*)", text, re.I):
        name = snake(singular(m.group(1).lower(), rules_only=True))
        if name != entity and m.group(1).lower() not in _TIME_WORDS and name not in out:
            out[name] = (AttributeDraft(name=name, words=m.group(0)), m.group(0))
    return list(out.values())


def find_incidents(text: str) -> list[tuple[str, str]]:
    """(pattern kind, words) for each kind of incident the text asks for."""
    out: dict[str, str] = {}
    for pattern, kind in incident_words():
        m = re.search(rf"\b(?:{pattern})", text, re.I)
        if m and kind not in out:  # the words around the match, so the writer can find the key it names
            out[kind] = text[max(0, m.start() - 40): m.end() + 40].strip()
    return list(out.items())


def nearest_pack(text: str) -> str | None:
    """The built-in pack whose vocabulary the text uses most (None when it uses none)."""
    scores = {p: len(re.findall(rf"\b(?:{w})", text, re.I)) for p, w in _PACK_WORDS.items()}
    best = max(scores, key=lambda p: (scores[p], p))
    return best if scores[best] else None
