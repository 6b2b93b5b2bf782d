"""Words of a chat line: typos repaired towards the words the reader knows, number words written as
digits ('three' → 3, 'half an hour' → 30 minutes), crude stems for matching words to names, adverbs
as adjectives for styles, and durations in the user's unit."""

from __future__ import annotations

import re

from rapidfuzz.distance import OSA

from tools.chat.read_text import FILLER, UNIT_WORD, Line

NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
                "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
                "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
            "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "7th": 7,
            "8th": 8, "9th": 9, "10th": 10}


def _number_value(words: list[str]) -> float | None:
    total, seen = 0.0, False
    for w in words:
        if w not in NUMBER_WORDS:
            return None
        total += NUMBER_WORDS[w]
        seen = True
    return total if seen else None


def _num(v: float) -> str:
    return str(int(v)) if v == int(v) else str(v)


def normalise(line: Line, vocabulary: set[str], keep: set[str]) -> None:
    """Repair typos (against ``vocabulary``; ``keep`` lists words never changed) and write number
    words as digits: 'three' → 3, 'an hour' → 1 hour, 'half an hour' → 30 minutes, 'two and a half
    hours' → 2.5 hours, 'a couple of' → 2."""
    line.sub(r"[’‘`]", lambda m: "'")
    line.sub(r"[a-z][a-z']{2,}", lambda m: _repair(m.group(0), vocabulary, keep, line.repairs))
    tens = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
    words = "|".join(sorted((w for w in NUMBER_WORDS if w != "one"), key=len, reverse=True))
    line.sub(rf"\b(?:(?:{tens})[\s-](?:one|two|three|four|five|six|seven|eight|nine)|{words})\b",
             lambda m: _num(_number_value(re.split(r"[\s-]", m.group(0))) or 0))
    line.sub(rf"\bone(?=\s+(?:more\b|{UNIT_WORD}\b))", lambda m: "1")
    line.sub(r"\bhalf a dozen\b", lambda m: "6")
    line.sub(r"\ba dozen\b", lambda m: "12")
    line.sub(r"\ba couple(?: of)?\b", lambda m: "2")
    line.sub(rf"\bhalf an? ({UNIT_WORD})\b", lambda m: _half(m.group(1)))
    line.sub(rf"\b(?:an?|one) ({UNIT_WORD}) and a half\b", lambda m: f"1.5 {m.group(1)}s")
    line.sub(rf"\b(\d+) and a half ({UNIT_WORD})\b", lambda m: f"{m.group(1)}.5 {m.group(2)}")
    line.sub(rf"(?<!once )(?<!per )\b(?:an?|one)\s+({UNIT_WORD})\b", lambda m: f"1 {m.group(1)}")


def _half(unit: str) -> str:
    u = unit.rstrip("s")
    return {"hour": "30 minutes", "day": "12 hours", "minute": "30 seconds", "week": "84 hours"}.get(u, f"0.5 {u}")


def _repair(word: str, vocabulary: set[str], keep: set[str], repairs: list[str]) -> str | None:
    """The vocabulary word a typo'd ``word`` stands for (None: leave it). Conservative: a swap of two
    letters, one letter more or less (both words of 5 letters or more), one changed letter or two edits
    (8 letters or more); never an inflection of a known word; and only when exactly one vocabulary
    word is that close."""
    if word in vocabulary or word in keep or word in FILLER or "'" in word or len(word) < 4:
        return None
    if any(word.startswith(v) and len(v) >= 4 and word[len(v):] in ("s", "es", "d", "ed", "ing", "er", "ly", "r")
           for v in vocabulary if v[:3] == word[:3]):
        return None  # an inflection of a known word, not a typo
    best, tied, dist_best = None, False, 9
    for v in vocabulary:
        if abs(len(v) - len(word)) > 2 or v[0] != word[0] and v[-1] != word[-1]:
            continue
        d = OSA.distance(word, v, score_cutoff=2)
        if d > 2 or not _allowed(word, v, d):
            continue
        if d < dist_best:
            best, tied, dist_best = v, False, d
        elif d == dist_best and v != best:
            tied = True
    if best is None or tied:
        return None
    repairs.append(f"{word}→{best}")
    return best


def _allowed(word: str, v: str, d: int) -> bool:
    if d == 2:
        return len(word) >= 8 and len(v) >= 8
    if len(word) == len(v) and sorted(word) == sorted(v):
        return True  # two letters swapped
    if abs(len(word) - len(v)) == 1:
        return min(len(word), len(v)) >= 5
    return len(word) >= 8


def stem(word: str) -> str:
    """A crude stem for matching words to names: 'dropped' → drop, 'users' → user, 'congestion' →
    congest, 'outages' → outage."""
    w = word.lower().strip("'")
    if w.endswith("'s"):
        w = w[:-2]
    for end, rep in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x")):
        if w.endswith(end) and len(w) > len(end) + 2:
            w = w[: -len(end)] + rep
            break
    else:
        if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
            w = w[:-1]
    for end in ("ion", "ing", "ed"):
        if w.endswith(end) and len(w) - len(end) >= 4:
            w = w[: -len(end)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiousl":
                w = w[:-1]
            break
    return w


def adjective(word: str) -> str:
    """'casually' → casual, 'tersely' → terse, 'angrily' → angry (other words unchanged)."""
    if word.endswith("ily") and len(word) > 5:
        return word[:-3] + "y"
    if word.endswith("ly") and len(word) > 4 and word not in ("only", "daily", "hourly", "early", "friendly"):
        return word[:-2]
    return word


def duration_text(value: float, unit: str) -> str:
    """'2', 'hours' → '2h'; fractional values in the next smaller unit ('2.5 hours' → '2h30m')."""
    from tools.common.durations import format_duration

    u = unit_letter(unit)
    if value == int(value):
        return f"{int(value)}{u}"
    seconds = value * {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[u]
    return format_duration(seconds)


def unit_letter(unit: str) -> str:
    """'hours' / 'hr' / 'h' → 'h'."""
    u = unit.lower()
    if u in ("s", "m", "h", "d", "w"):
        return u
    if u.startswith(("sec",)):
        return "s"
    if u.startswith("min"):
        return "m"
    if u.startswith(("hour", "hr")):
        return "h"
    if u.startswith("day"):
        return "d"
    return "w"
