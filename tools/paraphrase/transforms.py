"""Meaning-preserving rewrites of a canonical question, the building blocks of the paraphraser.

Structural: split into sentences (preamble, the asking sentence, trailing instructions), move the
trailing instructions before the ask, move a window adjunct to the front, re-render the window
(words, ``[start, end)``, "up to but not including", relative days), reword the opener and the
instructions from phrase banks (``banks.py``). Lexical (persona): vocabulary, dialect, abbreviations,
terse keyword style, non-native phrasing and seeded typos. Quoted values, identifiers and the
rendered window are masked first, so no lexical rewrite can touch a slot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

import numpy as np

from tools.paraphrase.personas import Persona

_T = r"(\d\d:\d\d) UTC on (\d{1,2} [A-Z][a-z]+ \d{4})"
WINDOW_RE = re.compile(rf"\b([Ff]rom|[Bb]etween) {_T} \(included\) (up to|and) {_T} \(excluded\)")
_MASK_RE = re.compile(r"⟦(\d+)⟧")
_QUOTED_RE = re.compile(r"(?<![\w])'[^']+'(?![\w])")
_IDENT_RE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b|\b[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*\b")
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December"]


@dataclass
class Question:
    """A canonical question split into sentences around the one that asks (ends with '?')."""

    pre: list[str]
    ask: str
    post: list[str]


def split_question(text: str) -> Question:
    """Sentences before the asking sentence, the asking sentence, and the sentences after it."""
    sents = [s for s in re.split(r"(?<=[.?!])\s+(?=[A-Z(])", text.strip()) if s]
    i = next((k for k, s in enumerate(sents) if s.endswith("?")), 0)
    return Question(sents[:i], sents[i], sents[i + 1:])


def split_clauses(sentence: str) -> list[str]:
    """A sentence split at its top-level semicolons into sentences, where the next clause does not
    lean on the previous one (a pronoun opening it keeps the two together)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(sentence):
        depth += ch == "(" or ch == "["
        depth -= ch == ")" or ch == "]"
        if ch == ";" and depth == 0:
            rest = sentence[i + 1:].lstrip()
            if not re.match(r"(?:it|its|they|their|this|that|these|those|such|then|and|or|but)\b", rest, re.I):
                parts.append(sentence[start:i].strip())
                start = i + 1
    parts.append(sentence[start:].strip())
    if len(parts) == 1:
        return parts
    return [(x[:1].upper() + x[1:]).rstrip(".") + "." for x in parts[:-1]] + [parts[-1][:1].upper() + parts[-1][1:]]


def _norm(s: str) -> str:
    return re.sub(r"[\s_\-]+", " ", s.lower()).strip()


class Masker:
    """Replaces spans that must stay verbatim by ``⟦n⟧`` markers and puts them back afterwards."""

    def __init__(self, jargon: dict[str, str] | None = None) -> None:
        self.items: list[str] = []
        self.jargon = jargon or {}  # identifier (normalised) -> the domain's word for it

    def add(self, s: str) -> str:
        self.items.append(s)
        return f"⟦{len(self.items) - 1}⟧"

    def mask(self, text: str) -> str:
        text = _QUOTED_RE.sub(lambda m: self.add(m.group(0)), text)
        return _IDENT_RE.sub(lambda m: self.add(self.jargon.get(_norm(m.group(0)), m.group(0))), text)

    def unmask(self, text: str) -> str:
        for _ in range(3):  # a window marker may contain date markers
            text = _MASK_RE.sub(lambda m: self.items[int(m.group(1))], text)
        return text


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def render_moment(hhmm: str, day: str, p: Persona, variant: int, anchor: date | None) -> str:
    """One window bound ("14:00 UTC on 2 January 2026") in the persona's date habits."""
    d = datetime.strptime(day, "%d %B %Y").date()
    h, m = (int(x) for x in hhmm.split(":"))
    t = hhmm
    if p.habits.ampm:
        t = f"{h % 12 or 12}{f':{m:02d}' if m else ''} {'PM' if h >= 12 else 'AM'}"
    if p.habits.relative_time and anchor is not None and 0 <= (anchor - d).days <= 2:
        rel = ["today", "yesterday", "the day before yesterday"][(anchor - d).days]
        return f"{rel} at {t} UTC"
    mon, short = MONTH_NAMES[d.month - 1], MONTH_NAMES[d.month - 1][:3]
    if p.habits.iso_dates:
        return f"{d.isoformat()} {t} UTC"
    if p.dialect == "us":
        return [f"{mon} {d.day}, {d.year} at {t} UTC", f"{t} UTC on {short} {d.day}, {d.year}"][variant % 2]
    if p.dialect == "in":
        return [f"{_ordinal(d.day)} {mon} {d.year} at {t} UTC", f"{t} UTC on {_ordinal(d.day)} {short} {d.year}"][variant % 2]
    return [f"{d.day} {mon} {d.year} at {t} UTC", f"{t} UTC on {d.day} {short} {d.year}"][variant % 2]


def render_day(d: date, p: Persona) -> str:
    """A calendar day in the persona's date habits (used for the 'Today is ...' anchor)."""
    mon = MONTH_NAMES[d.month - 1]
    if p.habits.iso_dates:
        return d.isoformat()
    return {"us": f"{mon} {d.day}, {d.year}", "in": f"{_ordinal(d.day)} {mon} {d.year}"}.get(
        p.dialect, f"{d.day} {mon} {d.year}")


def render_window(kind: str, a: str, b: str, style: int, p: Persona) -> str:
    """A half-open window ``[a, b)`` in words; ``kind`` is the canonical's 'from' or 'between'."""
    if style == 0:
        return f"{kind} {a} (included) {'up to' if kind == 'from' else 'and'} {b} (excluded)"
    if style == 1:
        return f"between {a} and {b} (start included, end excluded)"
    if style == 2:
        return f"in the window [{a}, {b})" if kind == "from" else f"in [{a}, {b})"
    return (f"from {a} up to but not including {b}" if kind == "from"
            else f"between {a} (inclusive) and {b} (exclusive)")


def windows(text: str) -> list[re.Match]:
    return list(WINDOW_RE.finditer(text))


def lower_first(s: str) -> str:
    return s[:1].lower() + s[1:] if s[:2] != s[:2].upper() else s


def upper_first(s: str) -> str:
    return s[:1].upper() + s[1:]


# ---------------------------------------------------------------- lexical (persona) rewrites

_PROTECTED = set("""not no without never none nor above below over under more less least most than at or
highest lowest largest smallest top first last each every per only after before within between from up to
including included excluded inclusive exclusive distinct unique once twice hours hour minutes minute seconds
second days day weeks utc january february march april may june july august september october november
december today yesterday decimal decimals places place whole nearest round rounded percent percentage
mean median average sum total count number rise fall earlier later previous next same other""".split())

_ABBREVIATIONS = [(r"\bminutes\b", "mins"), (r"\bseconds\b", "secs"), (r"\bpercent\b", "%"),
                  (r"\bper cent\b", "%"), (r"\baverage\b", "avg"), (r"\bmaximum\b", "max"),
                  (r"\bnumber of\b", "# of"), (r"\bdecimal places\b", "dp"), (r"\bdecimal place\b", "dp"),
                  (r"\bstandard deviation\b", "std dev"), (r"\bwith\b", "w/"), (r"\band\b", "&"),
                  (r"\bapproximately\b", "approx"), (r"\bconfiguration\b", "config")]
_BASE_SYNONYMS = [(r"\boccurred\b", "happened"), (r"\brecorded\b", "logged"), (r"\bwhole data set\b", "entire dataset"),
                  (r"\bthe data\b", "the dataset"), (r"\bConsider\b", "Take"), (r"\bconsecutive\b", "successive"),
                  (r"\bleft out\b", "excluded"), (r"\bin time order\b", "chronologically")]
_FORMAL_SYNONYMS = [(r"\bconsecutive\b", "successive"), (r"\bmaximal run\b", "longest unbroken run"),
                    (r"\bdirectly\b", "immediately"), (r"\bmust be\b", "has to be"), (r"\bleft out\b", "not counted"),
                    (r"\bwhole history\b", "full history"), (r"\bis used\b", "is taken into account"),
                    (r"\bcounts only if\b", "is counted only if"), (r"\bmay come\b", "can occur"),
                    (r"\bin between\b", "in the meantime"), (r"\bEach of\b", "Every one of"), (r"\beach of\b", "every one of"),
                    # not 'each' → 'every': 'in each status' (per status) is not 'in every status'
                    (r"\bgo through\b", "pass through"), (r"\bwent through\b", "passed through"),
                    (r"\bhappens at\b", "takes place at"), (r"\bkeep\b", "retain"), (r"\bfind\b", "determine"),
                    (r"\bopens\b", "starts"), (r"\bwritten like\b", "written as"), (r"\bit ends\b", "it stops"),
                    (r"\bAn episode\b", "A spell"), (r"\ban episode\b", "a spell"), (r"\bepisodes\b", "spells"),
                    (r"\bepisode\b", "spell")]  # not 'share': it is also a noun ('what share of ...')
_CASUAL_SYNONYMS = [(r"\bconsecutive\b", "back-to-back"), (r"\bmaximal run\b", "longest streak"),
                    (r"\bdirectly\b", "right"), (r"\bmust be\b", "needs to be"), (r"\bleft out\b", "skipped"),
                    (r"\bwhole history\b", "entire history"), (r"\bis used\b", "counts"), (r"\bmay come\b", "can show up"),
                    (r"\bin between\b", "in the middle"), (r"\bcounts only if\b", "only counts if"),
                    (r"\bwent through\b", "went thru"), (r"\bkeep\b", "take"),
                    (r"\bfind\b", "figure out"), (r"\bIt happens\b", "It's"), (r"\bit ends\b", "it finishes"),
                    (r"\bopens\b", "kicks in"), (r"\bAn episode\b", "A stretch"), (r"\ban episode\b", "a stretch"),
                    (r"\bepisodes\b", "stretches"), (r"\bepisode\b", "stretch")]
_NON_NATIVE = [(r"\bWhat was\b", "What is"), (r"\bin which\b", "where"), (r"\bthe whole\b", "full"),
               (r"\bwhose\b", "for which the"), (r"\bhappened\b", "has happened")]
_UK = [(r"\bwhile\b", "whilst"), (r"\bpercent\b", "per cent"), (r"\bdata set\b", "dataset")]
_IN = [(r"\buntil\b", "till"), (r"\bWhat was\b", "What is"), (r"\bplease\b", "kindly")]


def _subs(text: str, pairs: list[tuple[str, str]]) -> str:
    for rx, rep in pairs:
        text = re.sub(rx, rep, text)
    return text


def _vocabulary(text: str, vocab: dict[str, str]) -> str:
    for word in sorted(vocab, key=len, reverse=True):
        text = re.sub(rf"(?<![\w⟦]){re.escape(word)}(?![\w⟧])", vocab[word], text)
    return text


def _typo(word: str, rng: np.random.Generator) -> str:
    i = int(rng.integers(1, len(word) - 2))
    kind = int(rng.integers(0, 3))
    if kind == 0:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if kind == 1:
        return word[:i] + word[i + 1:]
    return word[:i] + word[i] + word[i:]


def typos(text: str, rate: float, rng: np.random.Generator) -> str:
    """Seeded typos in ordinary words of 5+ letters (never in masked spans or protected words)."""
    def one(m: re.Match) -> str:
        w = m.group(0)
        if w.lower() in _PROTECTED or rng.random() >= rate:
            return w
        return _typo(w, rng)
    return re.sub(r"(?<![⟦\w])[a-z]{5,}(?![\w⟧])", one, text)


def terse(text: str) -> str:
    """Keyword-like: no articles or politeness, lower case, no trailing full stop."""
    text = re.sub(r"\b(?:the|a|an|please|Please)\s+(?=[⟦\w#])", "", text)
    text = re.sub(r"\bThe\s+", "", text)
    text = re.sub(r"\s+,", ",", text)
    return text


def lexical(text: str, p: Persona, rng: np.random.Generator) -> str:
    """The persona's word-level habits, applied to masked text."""
    text = _vocabulary(text, p.vocabulary)
    if p.formality != "high" or p.style != "perfect_grammar":
        text = _subs(text, _BASE_SYNONYMS)
    text = _subs(text, _FORMAL_SYNONYMS if p.style in ("perfect_grammar", "non_native") else _CASUAL_SYNONYMS)
    if p.dialect == "uk":
        text = _subs(text, _UK)
    if p.dialect == "in":
        text = _subs(text, _IN)
    if p.style == "non_native":
        text = _subs(text, _NON_NATIVE)
    if p.habits.abbreviations:
        text = _subs(text, _ABBREVIATIONS)
    if p.style == "terse":
        text = terse(text)
    if p.style == "typos" or p.habits.typo_rate:
        text = typos(text, p.habits.typo_rate or 0.06, rng)
        text = lower_first(text) if rng.random() < 0.5 else text
    return text
