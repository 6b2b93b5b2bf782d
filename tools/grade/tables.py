"""Structured responses parsed into tables: markdown and plain-text tables, JSON / JSONL records,
column-oriented JSON, pandas DataFrame and Series printouts and the output block of code-then-output
answers. A :class:`Table` has headers and rows of raw cell strings; pandas index columns are dropped."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_CODE_WORDS = re.compile(r"^\s*(?:select|with|from|where|group by|order by|import|def |print\(|df\b|res\b|result\b|"
                         r"con\.|for |if |return|\w+\s*=\s*\S|\(df|pd\.|np\.)", re.I)
_SQL_LINE = re.compile(r"^\s*(?:(?:SELECT|WITH|FROM|WHERE|GROUP BY|ORDER BY|HAVING|LIMIT|JOIN)\b.*|(?i:select\b.*\bfrom\b.*))$",
                       re.M)
_SEP_CELL = re.compile(r"\s*:?-{2,}:?\s*")


@dataclass
class Table:
    """Rows of cell strings under ``headers`` (``kind``: markdown, json, dataframe, series, text)."""

    headers: list[str]
    rows: list[list[str]]
    kind: str
    span: tuple[int, int] = (0, 0)
    name: str = ""
    extra: dict = field(default_factory=dict)

    def column(self, i: int) -> list[str]:
        """The cells of column ``i``."""
        return [r[i] if i < len(r) else "" for r in self.rows]


def split_code(text: str) -> tuple[str, list[str]]:
    """(text with code blocks and SQL lines blanked, output blocks). A fenced block whose lines look like
    code (SQL, Python) is code; other fenced blocks are outputs and stay in the text."""
    outputs: list[str] = []

    def fence(m: re.Match) -> str:
        lang, body = (m.group(1) or "").lower(), m.group(2)
        lines = [ln for ln in body.splitlines() if ln.strip()]
        is_code = lang in ("sql", "python", "py", "duckdb", "pandas") or (
            lines and sum(bool(_CODE_WORDS.match(ln)) for ln in lines) >= max(1, len(lines) // 2))
        if is_code:
            return "\n" * body.count("\n")
        outputs.append(body)
        return body

    t = re.sub(r"```([A-Za-z]*)[ \t]*\n?(.*?)(?:```|$)", fence, text, flags=re.S)
    t = re.sub(r"`([^`\n]*\b(?:SELECT|select)\b[^`\n]*)`", lambda m: " " * len(m.group(0)), t)
    t = _SQL_LINE.sub(lambda m: " " * len(m.group(0)), t)
    return t.replace("`", ""), outputs


def parse_tables(text: str) -> list[Table]:
    """Every table in ``text`` (JSON first; else markdown, then whitespace-aligned blocks)."""
    found = _json_tables(text)
    if found:
        return found
    found = _markdown_tables(text)
    return found + _aligned_tables(text, [t.span for t in found])


def json_values(text: str) -> list[Any]:
    """The JSON values of a response: the whole text, fenced blocks, one per line (JSONL), or the
    outermost embedded object/array."""
    t = text.strip()
    out = []
    for cand in (t, *re.findall(r"```(?:json)?\s*(.+?)```", text, flags=re.S)):
        try:
            out.append(json.loads(cand))
            return out
        except (ValueError, TypeError):
            pass
    lines = [ln for ln in t.splitlines() if ln.strip().startswith("{")]
    if len(lines) > 1:
        try:
            return [[json.loads(ln) for ln in lines]]
        except ValueError:
            pass
    m = re.search(r"[\[{].*[\]}]", t, flags=re.S)
    if m:
        try:
            return [json.loads(m.group(0))]
        except ValueError:
            return []
    return []


def _cell(v: Any) -> str:
    if isinstance(v, bool):
        return "True" if v else "False"
    if v is None:
        return ""
    return v if isinstance(v, str) else json.dumps(v)


def _records_table(recs: list[dict]) -> Table:
    headers: list[str] = []
    for r in recs:
        headers += [k for k in r if k not in headers]
    return Table(headers, [[_cell(r.get(h)) for h in headers] for r in recs], "json")


def json_table(payload: Any) -> Table | None:
    """A JSON value as a table: a list of records, ``{"columns", "rows"|"data"}``, column-oriented
    ``{"col": {"0": v}}`` / ``{"col": [v, ...]}``, a wrapper ``{"data"|"rows"|"results": [...]}``, or
    one flat record."""
    if isinstance(payload, list) and payload and all(isinstance(x, dict) for x in payload):
        return _records_table(payload)
    if not isinstance(payload, dict) or not payload:
        return None
    if "columns" in payload and isinstance(payload.get("rows", payload.get("data")), list):
        rows = payload.get("rows", payload.get("data"))
        return Table([str(c) for c in payload["columns"]], [[_cell(x) for x in r] for r in rows], "json")
    for key in ("data", "rows", "results", "records", "result"):
        inner = payload.get(key)
        if isinstance(inner, list) and inner and all(isinstance(x, dict) for x in inner):
            return _records_table(inner)
    vals = list(payload.values())
    if all(isinstance(v, dict) for v in vals) and len({tuple(v) for v in vals}) == 1:  # pandas orient=columns
        idx = list(vals[0])
        return Table(list(payload), [[_cell(payload[c][i]) for c in payload] for i in idx], "json")
    if all(isinstance(v, list) for v in vals) and len({len(v) for v in vals}) == 1 and len(vals) > 1:
        return Table(list(payload), [[_cell(v[i]) for v in vals] for i in range(len(vals[0]))], "json")
    flat = {k: v for k, v in payload.items() if not isinstance(v, dict | list)}
    if flat:
        return Table(list(flat), [[_cell(v) for v in flat.values()]], "json")
    return None


def _json_tables(text: str) -> list[Table]:
    out = []
    for v in json_values(text):
        t = json_table(v)
        if t is not None:
            out.append(t)
    return out


def _markdown_tables(text: str) -> list[Table]:
    out, block, start, pos = [], [], 0, 0
    for line in text.splitlines(keepends=True):
        if line.strip().startswith("|") or (line.count("|") >= 2 and block):
            if not block:
                start = pos
            block.append(line)
        else:
            if block:
                out.append(_md(block, start, pos))
            block = []
        pos += len(line)
    if block:
        out.append(_md(block, start, pos))
    return [t for t in out if t is not None]


def _md(lines: list[str], start: int, end: int) -> Table | None:
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines]
    has_sep = len(rows) > 1 and all(_SEP_CELL.fullmatch(c) or not c for c in rows[1])
    body = [r for r in rows if not all(_SEP_CELL.fullmatch(c) or not c for c in r)]
    if not body:
        return None
    if has_sep:
        return Table(body[0], body[1:], "markdown", (start, end))
    return Table([f"col{i}" for i in range(len(body[0]))], body, "markdown", (start, end))


_ROW_INDEX = re.compile(r"^\s*\d+\s+\S")


def _aligned_tables(text: str, taken: list[tuple[int, int]]) -> list[Table]:
    """Whitespace-aligned blocks: DataFrame and Series printouts, plain-text tables with a header."""
    out, block, start, pos = [], [], 0, 0
    for line in [*text.splitlines(keepends=True), ""]:
        inside = any(s <= pos < e for s, e in taken)
        if (line.strip() and not inside and not line.rstrip().endswith((".", ":", "?"))
                and not re.match(r"\s*(?:[-*•]|\d+[.)])\s", line) and ":" not in line):
            if not block:
                start = pos
            block.append(line.rstrip("\n"))
        else:
            if len(block) >= 2:
                t = _aligned(block, (start, pos))
                if t is not None:
                    out.append(t)
            block = []
        pos += len(line)
    return out


def _aligned(lines: list[str], span: tuple[int, int]) -> Table | None:
    name = ""
    tail = re.match(r"Name:\s*([^,]+),\s*dtype", lines[-1].strip())
    if tail or lines[-1].strip().startswith(("dtype:", "[")):
        name = tail.group(1).strip() if tail else ""
        lines = lines[:-1]
    if len(lines) < 2:
        return None
    split = [_split(ln) for ln in lines]
    widths = {len(r) for r in split[1:]}
    if len(widths) != 1:
        return None
    w = widths.pop()
    head = split[0] if len(split[0]) in (w, w - 1) else lines[0].split()
    if w < 2 or sum(_numeric(c) for r in split[1:] for c in r) == 0:
        return None
    indented = lines[0][:1].isspace()
    if tail is not None or (len(head) == 1 and w == 2 and not indented):  # a Series: index name line, then "key value" rows
        return Table([head[0] if len(head) == 1 else "key", name or "value"], split[1:], "series", span, name)
    if len(head) == w - 1 and all(_ROW_INDEX.match(ln) for ln in lines[1:]):
        return Table(head, [r[1:] for r in split[1:]], "dataframe", span)
    if len(head) == w and all(re.fullmatch(r"[A-Za-z_][\w()%./-]*", c) for c in head):
        return Table(head, split[1:], "text", span)
    return None


def _split(line: str) -> list[str]:
    parts = re.split(r"\s{2,}", line.strip())
    return parts if len(parts) > 1 else line.split()


def _numeric(s: str) -> bool:
    return bool(re.fullmatch(r"[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?%?", s.strip()))
