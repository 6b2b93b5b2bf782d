"""What a question asks, read from its wording: the aggregate (mean, max, count, ...), the measure
words, a superlative, the counted noun of a "how many" question, a unit it asks for ("in hours"),
and the numbers it already contains with the words around them (echoes are not answers)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from tools.grade.text import numbers

AGGREGATES = {
    "mean": ("mean", "average", "avg", "averaged", "averages"),
    "max": ("max", "maximum", "highest", "peak", "peaked", "largest", "top"),
    "min": ("min", "minimum", "lowest", "smallest"),
    "std": ("std", "stddev", "deviation", "stdev"),
    "median": ("median", "p50"),
    "percentile": ("percentile", "quantile", "p90", "p95", "p99", "p75", "p25", "p05", "p5"),
    "variance": ("variance", "var"),
    "sum": ("sum", "total", "summed"),
    "count": ("count", "cnt", "number", "n"),
}
_STOP = {"the", "a", "an", "of", "in", "on", "at", "to", "from", "for", "and", "or", "by", "with", "was", "were",
         "is", "what", "which", "how", "many", "all", "any", "over", "up", "utc", "january", "february", "included",
         "excluded", "round", "decimal", "places", "place", "whose", "that", "had", "have", "each", "one", "its",
         "their", "it", "readings", "reading", "value", "values", "single", "during", "did", "same", "than", "per",
         "occurred", "earlier", "within",
         "give", "answer", "yes", "no", "rpm", "percent", "ms", "between", "before", "first", "mean",
         "average", "highest", "lowest", "total", "recorded", "there", "this", "these", "those", "who", "when",
         "them", "they", "be", "as", "not", "only", "least", "most", "more", "less", "times", "time", "day"}
_UNIT_ASKED = re.compile(r"\b(?:in|\()\s*(hours?|minutes?|seconds?|days?|ms|milliseconds?|percent|%)\b", re.I)


@dataclass
class QuestionInfo:
    """The parts of a question the grader uses."""

    aggregate: str | None
    measure: set[str] = field(default_factory=set)
    superlative: str | None = None
    counted: str | None = None
    counted_words: set[str] = field(default_factory=set)
    unit_asked: str | None = None
    echoes: dict[float, set[tuple[str, str]]] = field(default_factory=dict)
    not_affected: bool = False
    k: int | None = None
    text: str = ""
    scopes: list[tuple[str, str]] = field(default_factory=list)
    asks_change: bool = False


def _singular(w: str) -> str:
    return w[:-1] if w.endswith("s") and len(w) > 3 else w


def words(text: str) -> list[str]:
    """Lower-case alphanumeric words, with snake_case and camel parts split."""
    return [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()) if w]


@lru_cache(maxsize=4096)
def analyse(question: str) -> QuestionInfo:
    """The :class:`QuestionInfo` of ``question`` (cached: a suite asks each question many times)."""
    ws = words(question)
    q = question.lower()
    agg = None
    if re.search(r"\bhow many\b", q):
        agg = "count"
    for fam in ("std", "variance", "median", "percentile", "mean", "max", "min", "sum"):
        if agg is None and any(w in AGGREGATES[fam] for w in ws):
            agg = fam
    q_sup = re.sub(r"\bat (?:least|most)\b", " ", q)
    sup = "max" if re.search(r"\b(highest|largest|maximum|peak|most)\b", q_sup) else (
        "min" if re.search(r"\b(lowest|smallest|minimum|least)\b", q_sup) else None)
    m = re.search(r"\bhow many (?:distinct |different |unique )?([a-z_]+)(?: ([a-z_]+))?(?: ([a-z_]+))?", q)
    counted = _singular(m.group(1)) if m else None
    counted_words = {_singular(w) for w in (m.groups() if m else ()) if w and w not in _STOP}
    u = _UNIT_ASKED.search(question)
    k = re.search(r"\b(?:which|top)\s+(\d+)\b", q)
    return QuestionInfo(aggregate=agg, measure={_singular(w) for w in ws if w not in _STOP and not w.isdigit()},
                        superlative=sup, counted=counted, counted_words=counted_words, unit_asked=u.group(1).lower() if u else None,
                        echoes=_echo_contexts(question), not_affected=bool(re.search(r"not affected|unaffected", q)),
                        k=int(k.group(1)) if k else None, text=question,
                        scopes=[(a.lower(), v.lower()) for a, v in re.findall(r"\b(\w+) (?:is|was|=) '([^']+)'", question)],
                        asks_change=bool(re.search(r"\b(?:change|changed|increase|decrease|difference|delta|drop|rise|"
                                                   r"higher|lower|by how much)\b", q)))


def _echo_contexts(question: str) -> dict[float, set[tuple[str, str]]]:
    out: dict[float, set[tuple[str, str]]] = {}
    for n in numbers(question):
        prev = words(question[max(0, n.start - 25):n.start])
        nxt = words(question[n.end:n.end + 25])
        unit = words(question[n.start:n.end])
        after = nxt[0] if nxt else ""
        out.setdefault(round(n.value, 9), set()).add((prev[-1] if prev else "", unit[-1] if len(unit) > 1 else after))
    return out


def is_echo(info: QuestionInfo, value: float, prev_word: str, next_word: str) -> bool:
    """A number of the response that repeats one of the question's, in the same words around it."""
    ctx = info.echoes.get(round(value, 9))
    if not ctx:
        return False
    return any((p and p == prev_word) or (n and n == next_word and n != info.counted and
                                         _singular(n) != info.counted) for p, n in ctx)


def aggregate_of(text: str) -> str | None:
    """The aggregate family a piece of text names (its last aggregate word), if any."""
    found = None
    for w in words(text):
        for fam, ws in AGGREGATES.items():
            if fam != "count" and w in ws:
                found = fam
    return found
