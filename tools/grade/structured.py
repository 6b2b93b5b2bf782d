"""Matchers for structured answers: entity lists (set match, F1), mappings (per key within
tolerance, no extra keys) and rankings (order, values, no extra rows); tables (rows as a multiset):
``tools.grade.table_answers``.
They read JSON / JSONL records, markdown and plain-text tables, DataFrame and Series printouts,
numbered lists, inline 'a=1, b=2' prose and "A and B had 1 and 2 respectively"."""

from __future__ import annotations

import re
from typing import Any

from tools.grade.ids import canon_id, id_shape, ids_in
from tools.grade.question import analyse
from tools.grade.scalars import Verdict, says_none, within
from tools.grade.table_candidates import (
    _ANY_ID,
    _column_score,
    _num_cell,
    column_kinds,
    header_unit,
    tables_of,
)
from tools.grade.tables import Table, json_values
from tools.grade.text import mask_dates, norm_label, numbers
from tools.grade.units import durations, unit_of

_SUMMARY_KEYS = {"total", "all", "overall", "sum", "grand total"}


def _f1(got: set, want: set) -> float:
    if not got and not want:
        return 1.0
    tp = len(got & want)
    return 0.0 if tp == 0 else 2 * tp / (len(got) + len(want))


def _canon(x: Any) -> str:
    return canon_id(str(x)) if id_shape(str(x)) else norm_label(x)


def match_entity_list(text: str, expected: list, *, question: str = "") -> Verdict:
    """Set match of ids; missing and extra rows are listed and the F1 score recorded."""
    want = {_canon(e) for e in expected}
    examples = [str(e) for e in expected] or ["SENSOR_1"]
    got = set(ids_in(text, examples, question))
    flagged = _flagged_ids(text, examples, question)
    if flagged is not None:  # a table with a true/false column: only the rows flagged true are listed
        got = flagged
    if not got and (says_none(text) or not text.strip("[] \n")):
        got = set()
    elif not got:
        return Verdict(False, False, "no entity ids found in the response", [], 0.0 if expected else 1.0,
                       reason="no_candidate")
    if not expected and not got:
        return Verdict(True, True, "", [], 1.0, reason="none_as_expected")
    missing, extra = sorted(want - got), sorted(got - want)
    parts = [f"missing rows: {', '.join(missing)}" if missing else "", f"extra rows: {', '.join(extra)}" if extra else ""]
    reason = "same_set" if got == want else ("extra_keys" if extra else "missing_keys")
    return Verdict(got == want, True, "; ".join(p for p in parts if p), sorted(got), _f1(got, want), reason=reason)


def _flagged_ids(text: str, examples: list[str], question: str) -> set[str] | None:
    for t in tables_of(text):
        kinds = column_kinds(t)
        flags = [i for i, k in enumerate(kinds) if k == "flag"]
        if len(flags) == 1 and any(ids_in(c, examples) for c in t.column(0) + t.column(min(1, len(kinds) - 1))):
            f = flags[0]
            return {i for r in t.rows if f < len(r) and r[f].strip().lower() in ("true", "1", "yes")
                    for i in ids_in(" ".join(c for j, c in enumerate(r) if j != f), examples, question)}
    return None


def _value(v: Any, dur: bool, header: str = "") -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int | float):
        x = float(v)
    else:
        s = str(v)
        if dur:
            ds = durations(s)
            if ds and not re.fullmatch(r"\s*[-\d.,]+\s*", s):
                return ds[0][0]
        x = _num_cell(s)
        if x is None:
            nums = numbers(s)
            x = nums[0].value if nums else None
        if x is None:
            return None
    hu = header_unit(header)
    if dur and hu and unit_of(hu) and unit_of(hu)[0] == "time":
        return x * unit_of(hu)[1]
    return x


def _table_pairs(t: Table, keys: list[str], question: str, dur: bool) -> list[tuple[str, float | None]] | None:
    """(key, value) per row: the column holding the expected keys and the best value column."""
    kinds = column_kinds(t)
    wanted = {norm_label(k) for k in keys}
    key_cols = [i for i, k in enumerate(kinds) if k in ("text", "id", "date")]
    if not key_cols:
        if len(t.rows) == 1 and {norm_label(h) for h in t.headers} & wanted:  # one flat record {key: value}
            return [(h, _value(c, dur, h)) for h, c in zip(t.headers, t.rows[0], strict=False)]
        return None
    kc = max(key_cols, key=lambda i: sum(norm_label(c) in wanted for c in t.column(i)))
    vcols = [i for i, k in enumerate(kinds) if k in ("num", "duration") and i != kc]
    if not vcols:
        return None
    info = analyse(question)
    vc = max(vcols, key=lambda i: _column_score(t.headers[i], info, "", "number"))
    return [(r[kc], _value(r[vc] if vc < len(r) else "", dur, t.headers[vc])) for r in t.rows]


def _payload_pairs(text: str, keys: list[str], question: str, dur: bool) -> list[tuple[str, float | None]] | None:
    for v in json_values(text):
        if isinstance(v, dict):
            inner = next((x for x in v.values() if isinstance(x, list) and x and isinstance(x[0], list)), None)
            if inner is not None:
                v = inner
            elif all(not isinstance(x, dict | list) for x in v.values()) and {norm_label(k) for k in v} & {
                    norm_label(k) for k in keys}:
                return [(str(k), _value(x, dur)) for k, x in v.items()]
        if isinstance(v, list) and v and all(isinstance(x, list) and len(x) >= 2 for x in v):
            return [(str(x[0]), _value(x[1], dur)) for x in v]
    for t in tables_of(text):
        pairs = _table_pairs(t, keys, question, dur)
        if pairs:
            return pairs
    return None


def _respectively(text: str, keys: list[str], dur: bool) -> dict[str, float | None] | None:
    for sent in re.split(r"(?<=[.!?])\s+|\n", text):
        if "respectively" not in sent.lower():
            continue
        low = norm_label(mask_dates(sent))
        pos = sorted((m.start(), k) for k in keys for m in [re.search(
            rf"(?<![\w.]){re.escape(norm_label(k))}(?![\w])", low)] if m)
        if len(pos) != len(keys):
            continue
        nums = numbers(low, dates_masked=True)
        vals = [n.value * (unit_of(n.unit)[1] if dur and unit_of(n.unit) else 1.0) for n in nums]
        if len(vals) == len(keys):
            return {k: v for (_, k), v in zip(pos, vals, strict=True)}
    return None


def mask_other_ids(text: str, keys: list[str]) -> str:
    """Ids that are not expected keys ('SENSOR_01' under a zone; not 'RTR_001' of 'RTR_001/eth2') blanked."""
    wanted = {norm_label(p) for k in keys for p in {str(k), *str(k).split("/")}}
    return _ANY_ID.sub(lambda m: m.group(0) if norm_label(m.group(0)) in wanted else "§" * len(m.group(0)), text)


def _prose_pairs(text: str, keys: list[str], dur: bool) -> dict[str, float | None]:
    """For each key, the first number written after its mention and before the next key (or the one
    right before it: '42.97% for north')."""
    t = text if any(re.search(r"\d{4}-\d{2}-\d{2}|\d:\d{2}", str(k)) for k in keys) else mask_dates(text)
    low = norm_label(mask_other_ids(t, keys).replace("\n", " \n "))
    spans = []
    for k in keys:
        m = re.search(rf"(?<![\w.;]){re.escape(norm_label(k))}(?![\w;]|\.\w)", low)
        if m:
            spans.append((m.start(), m.end(), k))
    spans.sort()
    befores = {}
    for i, (start, _end, k) in enumerate(spans):
        prev_end = spans[i - 1][1] if i else 0
        hit = re.findall(r"([\d.,]+\s*%?)\s*(?:for|in|at|to)\s*$", low[prev_end:start])
        if hit:
            befores[k] = _value(hit[-1], dur)
    if len(befores) == len(spans) and spans:
        return befores
    out: dict[str, float | None] = {}
    for i, (start, end, k) in enumerate(spans):
        stop = spans[i + 1][0] if i + 1 < len(spans) else len(low)
        seg = low[end:stop]
        seg = seg.split("\n")[0] if "\n" in seg.strip("\n |") else seg
        v = _value(seg, dur) if re.search(r"\d", seg) else None
        if v is None:
            prev_end = spans[i - 1][1] if i else 0
            before = re.findall(r"([\d.,]+\s*%?)\s*(?:for|in|at)\s*$", low[prev_end:start])
            v = _value(before[-1], dur) if before else None
        out[k] = v
    return out


_PAIR = re.compile(r"(?:^|[,;\n(>]|\band\b)\s*[-*•]?\s*\**([a-z][\w >]{0,40}?)\**\s*[:=]\s*(-?(?:\d{1,3}(?:,\d{3})+|\d+)"
                   r"(?:\.\d+)?)", re.I | re.M)


def _extra_keys(pairs: list[tuple[str, float | None]], keys: list[str]) -> list[str]:
    wanted = {norm_label(k) for k in keys}
    return [k for k, v in pairs if norm_label(k) not in wanted and norm_label(k) not in _SUMMARY_KEYS and v not in (0, None)
            and not re.fullmatch(r"[\d\s.,%]+", k)
            and not any(re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", norm_label(k)) for w in wanted)]


def keyed_values(text: str, keys: list[str], question: str = "", dur: bool = False) -> tuple[dict, list[str]]:
    """(key -> value, extra keys stated) from structured payloads, 'respectively' or prose."""
    pairs = _payload_pairs(text, keys, question, dur)
    if pairs:
        table = {norm_label(k): v for k, v in pairs}
        return {k: table.get(norm_label(k)) for k in keys if norm_label(k) in table}, _extra_keys(pairs, keys)
    resp = _respectively(text, keys, dur)
    got = resp if resp is not None else _prose_pairs(text, keys, dur)
    prose_pairs = [(m.group(1).strip(), _value(m.group(2), False)) for m in _PAIR.finditer(mask_dates(text))]
    return got, _extra_keys(prose_pairs, keys)


def match_mapping(text: str, expected: dict, tol: dict, *, durations_: bool = False, question: str = "") -> Verdict:
    """Every key present with its value within tolerance; extra keys make it incorrect (a total row
    or a zero row does not)."""
    got, extra = keyed_values(text, list(expected), question, durations_)
    missing = [k for k in expected if got.get(k) is None]
    wrong = [f"{k}={got[k]:g} (expected {float(v):g})" for k, v in expected.items()
             if got.get(k) is not None and not within(got[k], float(v), tol)]
    parts = [f"missing rows: {', '.join(missing)}" if missing else "", f"wrong value: {', '.join(wrong)}" if wrong else "",
             f"extra rows: {', '.join(extra)}" if extra else ""]
    if len(missing) == len(expected):
        if says_none(text) or not re.search(r"\d", mask_dates(text)) or (len(text.split()) <= 12 and not extra):
            return Verdict(False, True, f"missing rows: {', '.join(missing)}", got, reason="no_answer")
        return Verdict(False, False, "no key of the expected mapping found", got, reason="no_candidate")
    shapes = {p.pattern for p in (id_shape(k) for k in expected) if p is not None}
    sub_level = extra and all(id_shape(k) is not None and id_shape(k).pattern not in shapes for k in extra)
    if sub_level and re.search(r"\n[ \t]+[-*•]|\(", text):
        return Verdict(False, False, f"a two-level breakdown (sub-keys {extra[:3]}); the per-key values are not "
                       "stated on their own", got, reason="two_level_breakdown")
    reason = "wrong_value" if wrong else "missing_keys" if missing else "extra_keys" if extra else "all_keys_match"
    return Verdict(not (missing or wrong or extra), True, "; ".join(p for p in parts if p), got, reason=reason)


def _ranked(text: str, labels: list[str], question: str) -> tuple[list[tuple[str, float | None]], list[str]]:
    """(label, value) in order of first mention, and rival labels stated (extra rows)."""
    pairs = _payload_pairs(text, labels, question, False)
    want = [norm_label(lab) for lab in labels]
    if pairs:
        order = [(norm_label(k), v) for k, v in pairs]
        return ([(k, v) for k, v in order if k in want], [k for k, _ in order if k not in want])
    low = norm_label(mask_dates(mask_other_ids(text, labels)).replace("\n", " \n "))
    spans = []
    for w in sorted(want, key=len, reverse=True):
        for m in re.finditer(rf"(?<![\w.]){re.escape(w)}(?![\w]|\.\w)", low):
            if not any(s <= m.start() < e for s, e, _ in spans):
                spans.append((m.start(), m.end(), w))
    spans.sort()
    seen: list[tuple[str, float | None]] = []
    for i, (_s, end, w) in enumerate(spans):
        stop = spans[i + 1][0] if i + 1 < len(spans) else len(low)
        seg = low[end:stop].split("\n")[0]
        nums = [n for n in numbers(seg, dates_masked=True) if not re.match(r"\s*\d+[.)]\s", seg[n.start - 1:n.end + 2])]
        if w not in [x for x, _ in seen]:
            seen.append((w, nums[0].value if nums else None))
    rest = low
    for s_, e_, _ in spans:
        rest = rest[:s_] + " " * (e_ - s_) + rest[e_:]
    want_ids = {_canon(lab) for lab in labels}
    extra = [o for o in ids_in(mask_dates(text), labels, question) if o not in want_ids]
    if any(" > " in w for w in want):
        extra += [m.group(1).strip() for m in re.finditer(r"((?:[a-z_]+ > )+[a-z_]+)", rest)]
    return seen, extra


def match_ranking(text: str, expected: list, tol: dict, *, question: str = "") -> Verdict:
    """The expected labels in order (no extra labels among them) with their values within tolerance."""
    labels = [str(lab) for lab, _ in expected]
    want = [norm_label(lab) for lab in labels]
    order, extra = _ranked(strip_arrows(text), labels, question)
    if not order:
        if says_none(text) or extra:
            return Verdict(False, True, f"missing rows: {', '.join(want)}", [], 0.0, reason="missing_keys")
        return Verdict(False, not re.search(r"\d", text), "no expected label found in the response", None,
                       reason="no_answer")
    got_labels = [lab for lab, _ in order]
    details, reason = [], "same_ranking"
    if extra:
        details.append(f"extra rows: {', '.join(dict.fromkeys(extra))}")
        reason = "extra_keys"
    missing = [w for w in want if w not in got_labels]
    if missing:
        details.append(f"missing rows: {', '.join(missing)}")
        reason = "missing_keys"
    if not missing and got_labels != want:
        details.append("wrong order: " + " > ".join(got_labels))
        reason = "wrong_order"
    exp_val = {norm_label(lab): val for lab, val in expected}
    bad = [f"{lab}={v:g} (expected {float(exp_val[lab]):g})" for lab, v in order
           if v is not None and not within(v, float(exp_val[lab]), tol)]
    nov = [lab for lab, v in order if v is None]
    if bad:
        details.append(f"wrong value: {', '.join(bad)}")
        reason = "wrong_value"
    if nov:
        details.append(f"missing value: {', '.join(nov)}")
        reason = "missing_value"
    return Verdict(not details, True, "; ".join(details), got_labels, reason=reason)


def strip_arrows(text: str) -> str:
    """Arrows between path steps written as ' > '."""
    return re.sub(r"\s*(?:→|->|=>|›|⟶)\s*", " > ", text)
