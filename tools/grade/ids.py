"""Matchers for entities (single ids and composite keys), labels and timestamps. Ids are tokens
('HUM_149' is one id, never the number 149); a composite entity must be stated in one row or claim."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from tools.grade.question import analyse
from tools.grade.scalars import Verdict, focus_texts
from tools.grade.table_candidates import column_kinds, tables_of
from tools.grade.tables import Table
from tools.grade.text import norm_label


def id_shape(value: str) -> re.Pattern | None:
    """A regex for ids shaped like ``value`` ('CELL_62' -> CELL_<digits>, also 'cell 62'), None for words."""
    m = re.fullmatch(r"(?P<p>.*?[^\d])(?P<d>\d+)", str(value))
    if not m:
        return None
    p = re.escape(m.group("p")).replace("_", "[_ -]?") if m.group("p").endswith("_") else re.escape(m.group("p"))
    return re.compile(rf"(?<![\w.]){p}(\d+)(?![\w.]*\w)", re.I)


def canon_id(s: str) -> str:
    """'cell_062', 'cell 62' and 'CELL_62' are one id: upper-case prefix, digits without leading zeros."""
    m = re.fullmatch(r"(.*?[^\d])(\d+)", s.strip())
    if not m:
        return norm_label(s)
    prefix = re.sub(r"[_ -]+$", "", m.group(1).upper())
    return f"{prefix}{'_' if prefix != m.group(1).upper() else ''}{int(m.group(2))}"


def ids_in(text: str, examples: list[str], question: str = "") -> list[str]:
    """Ids shaped like the examples found in ``text`` (in order, de-duplicated), minus ids the
    question itself names; plain-word labels are found by exact mention."""
    shapes = {p.pattern: p for p in (id_shape(e) for e in examples) if p is not None}
    found: list[tuple[int, str]] = []
    for p in shapes.values():
        found += [(m.start(), canon_id(m.group(0))) for m in p.finditer(text)]
    low = norm_label(text)
    for e in examples:
        if id_shape(e) is None:
            pat = re.compile(rf"(?<![\w]){re.escape(norm_label(e))}(?![\w])")
            found += [(m.start(), norm_label(e)) for m in pat.finditer(low)]
    in_question = set(ids_in(question, examples)) if question else set()
    out: list[str] = []
    for _, i in sorted(found):
        if i not in out and i not in in_question:
            out.append(i)
    return out


def _want(expected: Any) -> str:
    return canon_id(str(expected)) if id_shape(str(expected)) else norm_label(expected)


def _top_row_ids(tables: list[Table], examples: list[str], question: str) -> list[str] | None:
    for t in tables:
        kinds = column_kinds(t)
        for r in t.rows:
            found = ids_in(" | ".join(c for c, k in zip(r, kinds, strict=False) if k in ("text", "id")), examples,
                           question)
            if found:
                return found
    return None


def _clauses(text: str) -> list[str]:
    return [c for c in re.split(r"(?<=[.;!?])\s+|\n+|,\s*(?:but|while|whereas)\s+|\bbut\b|,?\s*followed by|"
                                r",?\s*(?:and )?then\b|\bsecond\b|\bnext\b", text) if c and c.strip()]


def match_entity(text: str, expected: Any, *, question: str = "") -> Verdict:
    """One entity id; a table answers with its top row; prose with several ids is read by the
    answer marker, bold, or the one clause that uses the question's superlative."""
    if isinstance(expected, dict):
        return _match_composite(text, expected)
    examples, want = [str(expected)], _want(expected)
    cands = ids_in(text, examples, question)
    if not cands:
        if id_shape(str(expected)) is None:
            return Verdict(False, False, "entity not found", None, reason="no_candidate")
        return Verdict(False, True, "no entity id found in the response", None, reason="no_answer")
    tables = tables_of(text)
    picks = [ids_in(f, examples, question) for f in focus_texts(text)]
    top = _top_row_ids(tables, examples, question)
    if top:
        picks.append(top[:1])
    if len(cands) == 1:
        picks.append(cands)
    info = analyse(question)
    sup_words = {"max": r"\b(?:largest|highest|biggest|most|peak|top|worst)\b", "min": r"\b(?:lowest|smallest|least|fewest)\b"}
    if info.superlative:
        hits = [ids_in(c, examples, question) for c in _clauses(text) if re.search(sup_words[info.superlative], c, re.I)]
        hits = [h for h in hits if len(h) == 1]
        if len({h[0] for h in hits}) == 1:
            picks.append(hits[0])
    for p in picks:
        if len(p) == 1:
            ok = p[0] == want
            return Verdict(ok, True, "" if ok else f"wrong value: {p[0]}", p[0],
                           reason="stated_entity" if ok else "wrong_entity")
    if re.search(r"\b(?:or|either)\b", text):
        return Verdict(False, True, f"hedges between several entities: {cands}", cands, reason="hedged")
    return Verdict(False, True, f"several entities listed, none singled out: {cands}", cands, reason="several_listed")


def _match_composite(text: str, expected: dict) -> Verdict:
    """Every key part in one row / line / claim, and that row is the first one naming such an entity."""
    parts = [norm_label(v) for v in expected.values()]
    shapes = [id_shape(str(v)) for v in expected.values()]
    units: list[str] = []
    for t in tables_of(text):
        units += [" | ".join(r) for r in t.rows]
    if not units:
        units = _clauses(text)

    def names_any(u: str) -> bool:
        return any(s.search(u) if s else norm_label(p) in norm_label(u) for s, p in zip(shapes, parts, strict=True))

    def has_all(u: str) -> bool:
        low = norm_label(u)
        return all(re.search(rf"(?<![\w]){re.escape(p)}(?![\w])", low) for p in parts)

    for u in units:
        if names_any(u):
            ok = has_all(u)
            return Verdict(ok, True, "" if ok else f"wrong value: the first entity named is {u.strip()[:60]!r}",
                           u.strip()[:80], reason="stated_entity" if ok else "wrong_entity")
    return Verdict(False, True, "no entity found in the response", None, reason="no_answer")


def match_label(text: str, expected: str, *, question: str = "") -> Verdict:
    """A label: the whole (short) response, its marked answer, a table's top row, or the one expected-or-
    rival label stated in a 'was/is X' claim. Labels may contain ';'."""
    want = norm_label(expected)
    for t in [*focus_texts(text), text]:
        got = norm_label(t).strip(" .!")
        if got == want:
            return Verdict(True, True, "", got, reason="stated_label")
    for t in tables_of(text):
        if t.rows:
            first = [norm_label(c) for c in t.rows[0]]
            return Verdict(want in first, True, "" if want in first else f"wrong value: top row {first}", first,
                           reason="table_cell" if want in first else "wrong_label")
    words = norm_label(text).strip(" .!")
    lead = re.match(r"^\W*([\w;>\-]+)\s*[,(:]", norm_label(text))
    if lead and norm_label(lead.group(1)) == want and not re.search(r"\b(?:no|not|but)\b", words):
        return Verdict(True, True, "", want, reason="stated_label")  # 'checkout, with 38.2%'
    if len(words.split()) <= 3:
        return Verdict(False, True, f"wrong value: {words}", words, reason="wrong_label")
    low = norm_label(text)
    pat = rf"(?<![\w;]){re.escape(want)}(?![\w;])"
    m = re.search(r"\b(?:was|is|were|are|reported|answer is)\s+(?:(?:on|in|at) )?(?:the\s+)?([\w;>\- ]+?)(?:\s+page)?"
                  r"(?:\s*[.,(]|$)", low)
    subj = re.match(r"^\W*(?:the\s+)?([\w;>\-]+)(?:\s+page)?\s+(?:has|had|is|was|shows)\s+the\s+(?:highest|lowest|most|"
                    r"largest|smallest|least)", low)
    if subj:
        ok = norm_label(subj.group(1)) == want
        return Verdict(ok, True, "" if ok else f"wrong value: {subj.group(1)}", subj.group(1),
                       reason="stated_label" if ok else "wrong_label")
    if m and norm_label(m.group(1)) == want:
        return Verdict(True, True, "", want, reason="stated_label")
    first = re.match(r"^\W*([\w;>\-]+)", low)
    if re.search(r"\b(?:no|not|but|however|instead|rather|actually)\b", low):
        m = first = None  # 'checkout? No - cart has ...': the first word is no claim
    if first and norm_label(first.group(1)) == want:
        return Verdict(True, True, "", want, reason="stated_label")
    if not re.search(pat, low) and (m or first):
        got = norm_label(m.group(1)) if m else first.group(1)
        if re.search(r"\d", got) and not re.search(r"[a-z]", got):
            return Verdict(False, True, f"not a label: {got}", got, reason="no_answer")
        return Verdict(False, True, f"wrong value: {got}", got, reason="wrong_label")
    return Verdict(False, False, "label not stated on its own", None, reason="several_candidates")


_ISO = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}|\s*UTC[+-]\d{2}:?\d{2})?")
_MONTHS = {m: i for i, m in enumerate("january february march april may june july august september october november "
                                      "december".split(), 1)}
_HUMAN = re.compile(r"(?:(?:at\s+)?(?P<t1>\d{1,2}:\d{2})(?::(?P<s1>\d{2}))?\s*UTC\s+on\s+(?P<d1>\d{1,2})\s+(?P<m1>[a-z]+)\s+"
                    r"(?P<y1>\d{4}))|(?:(?P<d2>\d{1,2})\s+(?P<m2>[a-z]+)\s+(?P<y2>\d{4}),?\s+(?:at\s+)?(?P<t2>\d{1,2}:"
                    r"\d{2})(?::(?P<s2>\d{2}))?)", re.I)


def _instants(text: str) -> list[datetime]:
    found = []
    for m in _ISO.finditer(text):
        ts = datetime.fromisoformat(re.sub(r"\s*UTC(?=[+-])", "", m.group(0)).replace("Z", "+00:00"))
        found.append((m.start(), ts if ts.tzinfo else ts.replace(tzinfo=UTC)))
    for m in _HUMAN.finditer(text):
        g = {k: v for k, v in m.groupdict().items() if v}
        n = "1" if "t1" in g else "2"
        mon = _MONTHS.get(g[f"m{n}"].lower())
        if mon:
            hh, mm = map(int, g[f"t{n}"].split(":"))
            found.append((m.start(), datetime(int(g[f"y{n}"]), mon, int(g[f"d{n}"]), hh, mm, int(g.get(f"s{n}", 0)),
                                              tzinfo=UTC)))
    if not found:  # epoch seconds / milliseconds ('first_critical_epoch_ms': 1767345300000)
        for m in re.finditer(r"(?<![\d.])(\d{13}|\d{10})(?![\d.])", text):
            v = int(m.group(1)) / (1000 if len(m.group(1)) == 13 else 1)
            if 946684800 <= v <= 4102444800:
                found.append((m.start(), datetime.fromtimestamp(v, UTC)))
    return [ts for _, ts in sorted(found, key=lambda x: x[0])]


def match_timestamp(text: str, expected: str, tol: dict) -> Verdict:
    """An ISO-8601, 'YYYY-MM-DD hh:mm[:ss]' or '09:15 UTC on 2 January 2026' instant within tolerance;
    with several, the marked or the first one stated."""
    want = datetime.fromisoformat(expected.replace("Z", "+00:00"))
    found = _instants(text)
    if not found:
        return Verdict(False, False, "no timestamp found", reason="no_candidate")
    for f in focus_texts(text):
        sub = _instants(f)
        if sub:
            found = sub
            break
    oks = {abs((t - want).total_seconds()) <= max(float(tol.get("abs", 0)), 0.5) for t in found}
    if len(oks) > 1 and not re.search(r"\bfirst\b", text, re.I):
        return Verdict(False, False, "several different timestamps", [t.isoformat() for t in found],
                       reason="several_candidates")
    ok = abs((found[0] - want).total_seconds()) <= max(float(tol.get("abs", 0)), 0.5)
    return Verdict(ok, True, "" if ok else f"wrong value: {found[0].isoformat()}", found[0].isoformat(),
                   reason="stated_timestamp" if ok else "wrong_value")
