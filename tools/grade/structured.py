"""Matchers for structured answers: entity lists (set match, F1), mappings (per key within
tolerance), rankings (order and values) and tables (rows as a multiset). They read JSON, markdown
tables, numbered lists and inline 'a=1, b=2' prose alike."""

from __future__ import annotations

import re
from typing import Any

from tools.grade.scalars import Verdict, canon_id, id_shape, ids_in, says_none, within
from tools.grade.text import mask_dates, norm_label, numbers, parse_json_payload
from tools.grade.units import durations


def _f1(got: set, want: set) -> float:
    if not got and not want:
        return 1.0
    tp = len(got & want)
    return 0.0 if tp == 0 else 2 * tp / (len(got) + len(want))


def match_entity_list(text: str, expected: list, *, question: str = "") -> Verdict:
    """Set match of ids; missing and extra rows are listed and the F1 score recorded."""
    want = {canon_id(str(e)) if id_shape(str(e)) else norm_label(e) for e in expected}
    payload = parse_json_payload(text)
    if isinstance(payload, list) and all(isinstance(x, str | int) for x in payload):
        got = {canon_id(str(x)) if id_shape(str(x)) else norm_label(x) for x in payload}
    else:
        got = set(ids_in(text, [str(e) for e in expected], question))
    if not expected and re.search(r"\b(none|no (?:\w+ )?(?:entities|sensors|cells|hosts|users|sessions|ids?)|empty)\b", text, re.I):
        got = set()
    elif not got:
        return Verdict(False, not bool(expected) or any(id_shape(str(e)) for e in expected),
                       "no entity ids found in the response", [], 0.0 if expected else 1.0)
    missing, extra = sorted(want - got), sorted(got - want)
    parts = [f"missing rows: {', '.join(missing)}" if missing else "", f"extra rows: {', '.join(extra)}" if extra else ""]
    return Verdict(got == want, True, "; ".join(p for p in parts if p), sorted(got), _f1(got, want))


def _value_in(segment: str, dur: bool) -> float | None:
    if dur:
        ds = durations(segment)
        if ds:
            return ds[0][0]
    nums = numbers(segment)
    return nums[0].value if nums else None


def _pairs_from_payload(payload: Any) -> list[tuple[str, Any]] | None:
    if isinstance(payload, dict):
        if "columns" in payload and "rows" in payload:
            return [(str(r[0]), r[1]) for r in payload["rows"] if len(r) >= 2]
        return [(str(k), v) for k, v in payload.items()]
    if isinstance(payload, list) and payload and all(isinstance(x, list | tuple | dict) for x in payload):
        out = []
        for x in payload:
            vals = list(x.values()) if isinstance(x, dict) else list(x)
            if len(vals) >= 2:
                out.append((str(vals[0]), vals[1]))
        return out
    return None


def _to_float(v: Any, dur: bool) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v)
    return _value_in(str(v), dur) if v is not None else None


def _keyed_values(text: str, keys: list[str], dur: bool) -> dict[str, float | None]:
    """For each key, the first number written after its mention and before the next key."""
    payload = _pairs_from_payload(parse_json_payload(text))
    if payload:
        table = {norm_label(k): _to_float(v, dur) for k, v in payload}
        return {k: table[norm_label(k)] for k in keys if norm_label(k) in table}
    t = text if any(re.search(r"\d{4}-\d{2}-\d{2}|\d:\d{2}", str(k)) for k in keys) else mask_dates(text)
    low = norm_label(t.replace("\n", " \n "))
    spans = []
    for k in keys:
        m = re.search(rf"(?<![\w.]){re.escape(norm_label(k))}(?![\w]|\.\w)", low)
        if m:
            spans.append((m.start(), m.end(), k))
    spans.sort()
    out = {}
    for i, (_, end, k) in enumerate(spans):
        stop = spans[i + 1][0] if i + 1 < len(spans) else len(low)
        seg = low[end:stop].split("\n")[0] if "\n" in low[end:stop].strip("\n |") else low[end:stop]
        out[k] = _value_in(seg, dur)
    return out


def match_mapping(text: str, expected: dict, tol: dict, *, durations_: bool = False) -> Verdict:
    """Every key present with its value within tolerance (values may be written as durations)."""
    got = _keyed_values(text, list(expected), durations_)
    missing = [k for k in expected if got.get(k) is None]
    wrong = [f"{k}={got[k]:g} (expected {float(v):g})" for k, v in expected.items()
             if got.get(k) is not None and not within(got[k], float(v), tol)]
    parts = [f"missing rows: {', '.join(missing)}" if missing else "", f"wrong value: {', '.join(wrong)}" if wrong else ""]
    if len(missing) == len(expected):
        if says_none(text):
            return Verdict(False, True, f"missing rows: {', '.join(missing)}", got)
        return Verdict(False, False, "no key of the expected mapping found", got)
    return Verdict(not missing and not wrong, True, "; ".join(p for p in parts if p), got)


def _items(text: str) -> list[str]:
    payload = _pairs_from_payload(parse_json_payload(text))
    if payload:
        return [f"{k}: {v}" for k, v in payload]
    lines = [ln for ln in text.splitlines() if ln.strip() and not re.fullmatch(r"[\s|:\-]+", ln)]
    # an inline ranking ('1. a (3), 2. b (2)') may share a line with other text
    return [p for ln in lines for p in re.split(r";\s*|,\s+(?=\D)|\s+\d+[.)]\s+", ln)]


def match_ranking(text: str, expected: list, tol: dict, *, question: str = "") -> Verdict:
    """The expected labels in order (no extra labels among them) with their values within tolerance."""
    labels = [str(lab) for lab, _ in expected]
    want = [norm_label(lab) for lab in labels]
    seen: list[tuple[str, float | None]] = []
    extra: list[str] = []
    for item in _items(text):
        low = norm_label(mask_dates(item))
        hit = max((w for w in want if re.search(rf"(?<![\w.]){re.escape(w)}(?![\w]|\.\w)", low)), key=len, default=None)
        if hit is None:
            others = ids_in(item, labels, question)
            if not others and any(" > " in w for w in want) and " > " in low:
                others = [re.split(r"\s*[:(]|\s+-\s+", low.strip(" -*|"))[0].strip()]
            extra += [o for o in others if o not in want]
            continue
        rest = low[low.index(hit) + len(hit):]
        nums = numbers(rest)
        seen.append((hit, nums[0].value if nums else None))
    order = []
    for lab, v in seen:
        if lab not in [o for o, _ in order]:
            order.append((lab, v))
    if not order:
        if says_none(text) or extra:
            return Verdict(False, True, f"missing rows: {', '.join(want)}", [], 0.0)
        return Verdict(False, False, "no expected label found in the response", None)
    got_labels = [lab for lab, _ in order]
    details = []
    if extra:
        details.append(f"extra rows: {', '.join(dict.fromkeys(extra))}")
    missing = [w for w in want if w not in got_labels]
    if missing:
        details.append(f"missing rows: {', '.join(missing)}")
    if not missing and got_labels != want:
        details.append("wrong order: " + " > ".join(got_labels))
    exp_val = {norm_label(lab): val for lab, val in expected}
    bad = [f"{lab}={v:g} (expected {float(exp_val[lab]):g})" for lab, v in order
           if v is not None and not within(v, float(exp_val[lab]), tol)]
    nov = [lab for lab, v in order if v is None]
    if bad:
        details.append(f"wrong value: {', '.join(bad)}")
    if nov:
        details.append(f"missing value: {', '.join(nov)}")
    return Verdict(not details, True, "; ".join(details), got_labels)


def _table_rows(text: str) -> list[list[str]] | None:
    payload = parse_json_payload(text)
    if isinstance(payload, dict) and "rows" in payload:
        return [[str(x) for x in r] for r in payload["rows"]]
    if isinstance(payload, list) and payload and isinstance(payload[0], dict):
        return [[str(x) for x in r.values()] for r in payload]
    rows = [ln.strip().strip("|").split("|") for ln in text.splitlines() if ln.count("|") >= 1]
    rows = [[c.strip() for c in r] for r in rows if not all(re.fullmatch(r"\s*:?-{2,}:?\s*", c) for c in r)]
    return rows[1:] if len(rows) > 1 else None


def _cell_eq(got: str, want: Any, tol: dict) -> bool:
    if isinstance(want, int | float) and not isinstance(want, bool):
        nums = numbers(got)
        return bool(nums) and within(nums[0].value, float(want), tol)
    return norm_label(got) == norm_label(want)


def match_table(text: str, expected: dict, tol: dict) -> Verdict:
    """Rows of a markdown or JSON table matched to the expected rows as a multiset (any order)."""
    rows = _table_rows(text)
    if rows is None:
        return Verdict(False, False, "no table found in the response")
    left = list(range(len(rows)))
    missing = []
    for want in expected["rows"]:
        hit = next((i for i in left if len(rows[i]) >= len(want)
                    and all(_cell_eq(g, w, tol) for g, w in zip(rows[i], want, strict=False))), None)
        if hit is None:
            missing.append(want)
        else:
            left.remove(hit)
    extra = [rows[i] for i in left]
    got, want_n = len(rows) - len(extra), len(expected["rows"])
    f1 = 0.0 if got == 0 else 2 * got / (len(rows) + want_n)
    parts = [f"missing rows: {missing}" if missing else "", f"extra rows: {extra}" if extra else ""]
    return Verdict(not missing and not extra, True, "; ".join(p for p in parts if p), rows, f1)
