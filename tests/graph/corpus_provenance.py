"""Whole-world expectations of a description (issue 29): nothing borrowed from another field, no phrase
fragment as a name.

Two optional keys of an expectation file's ``expect``:

- ``foreign: [regex, ...]``: names or category values that would mean the world borrowed another field's
  meaning of a shared word (a prison's "cell" with radio frequency bands). One expectation per regex: no
  table, column, state or category value of the bundle matches it.
- ``words_only: true``: every column of every table is named from the text. One expectation per table:
  each of its column names is made of words the description says (or structural words such as ``id``,
  ``timestamp``, ``state``), and none is a phrase fragment (glue words, verbs left from a sentence): one
  expectation for the whole bundle.
"""

from __future__ import annotations

import re

from tests.graph.corpus_data import BundleData

# words a column may have without the text saying them: keys, time, state, the `_metrics` table suffix and
# the structure of an event log
STRUCTURAL = {"id", "metrics", "metric", "ts", "timestamp", "time", "state", "status", "event", "seq", "step", "entity", "key", "at",
              "type", "name", "value", "per", "of", "in", "pct", "percent", "count", "number", "num", "total"}
# words that only end up in a name when a phrase was cut in the wrong place
GLUE = {"and", "or", "the", "a", "an", "for", "every", "each", "over", "with", "from", "to", "by", "on", "is", "are",
        "was", "were", "be", "it", "they", "them", "this", "that", "which", "while", "when", "then", "also", "some",
        "all", "its", "their", "our", "during", "until", "about", "around", "roughly", "approx", "hits", "takes",
        "raises", "drops", "knocks", "goes", "gets", "has", "have", "had"}


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    return word[:5]


def text_stems(text: str) -> set[str]:
    """The stems of the words of a text (lower case, first five letters of the singular)."""
    return {_stem(w) for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", text)} | {
        w.lower() for w in re.findall(r"[A-Za-z0-9]+", text)}


def name_problem(name: str, stems: set[str]) -> str | None:
    """Why a column name is not made of the text's words (None when it is)."""
    parts = [p for p in name.lower().split("_") if p]
    glue = [p for p in parts if p in GLUE]
    if glue:
        return f"'{name}' is a phrase fragment (has {', '.join(glue)})"
    unknown = [p for p in parts if p not in STRUCTURAL and not p.isdigit() and _stem(p) not in stems
               and p not in stems]
    if unknown:
        return f"'{name}' has words the description does not say ({', '.join(unknown)})"
    return None


def _names(data: BundleData, spec) -> list[tuple[str, str]]:
    """(what, name) of every table, column, state and categorical value of the bundle."""
    out = [("table", t) for t in sorted(data.tables)]
    for t in sorted(data.tables):
        out += [(f"column of {t}", c) for c in data.columns(t)]
    for e in spec.entities:
        if e.states:
            out += [(f"state of {e.name}", s) for s in e.states.states]
        for a in e.attributes:
            if a.dist.kind == "categorical":
                out += [(f"value of {e.name}.{a.name}", str(v)) for v in a.dist.values]
    return out


def provenance_outcomes(spec, data: BundleData, expect: dict, description: str, outcome) -> list:
    """The ``foreign`` and ``words_only`` expectations of ``expect`` as ``outcome(label, failure)`` objects."""
    out = []
    names = _names(data, spec)
    for pattern in expect.get("foreign", []):
        hits = [f"{what} '{n}'" for what, n in names if re.search(pattern, n, re.IGNORECASE)]
        out.append(outcome(f"nothing foreign /{pattern}/", None if not hits else
                           f"Borrowed from another field: {', '.join(hits[:4])} match '{pattern}'."))
    if expect.get("words_only"):
        stems, problems = text_stems(description), []
        for table in sorted(t for t in data.tables if not t.endswith("__baseline")):
            problem = name_problem(table, stems)
            problems += ([f"table {problem}"] if problem else [])
            problems += [f"{table}: {p}" for c in data.columns(table) if (p := name_problem(c, stems))]
        out.append(outcome("every table and column named from the text", None if not problems else
                           f"Names not from the text: {'; '.join(problems[:5])}"
                           + (f" (and {len(problems) - 5} more)." if len(problems) > 5 else ".")))
    return out


def count_provenance(expect: dict) -> int:
    """How many provenance expectations ``expect`` holds."""
    return len(expect.get("foreign", [])) + (1 if expect.get("words_only") else 0)
