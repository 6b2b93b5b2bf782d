"""Canonical answer encodings (DESIGN "Question records") and the executors' agreement rule.

Both executors' raw results go through :func:`canonical`; :func:`agree` compares them exactly for
integers, labels and sets, and within 1e-9 relative for floats.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from typing import Any

import numpy as np

FLOAT_REL = 1e-9


def _scalar(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, dt.timedelta):
        return v.total_seconds()
    if isinstance(v, dt.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=dt.UTC)
        return v.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    if hasattr(v, "to_pydatetime"):
        return _scalar(v.to_pydatetime())
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def canonical(value: Any, answer_type: str) -> Any:
    """Normalize an executor's raw result to the canonical JSON answer of ``answer_type``."""
    v = _scalar(value) if not isinstance(value, dict | list | tuple) else value
    if v is None:
        return None
    if answer_type == "number" or answer_type == "duration":
        return float(_scalar(v))
    if answer_type == "integer":
        return int(_scalar(v))
    if answer_type == "boolean":
        if isinstance(v, dict):
            return {k: canonical(x, "number") if k != "value" else bool(x) for k, x in v.items()}
        return bool(v)
    if answer_type in ("label", "entity", "timestamp"):
        return str(_scalar(v)) if answer_type != "timestamp" else _scalar(v)
    if answer_type == "entity_list":
        return sorted(str(_scalar(x)) for x in v)
    if answer_type == "mapping":
        items = v.items() if isinstance(v, dict) else v
        return {str(_scalar(k)): _scalar(x) for k, x in sorted(items, key=lambda kv: str(_scalar(kv[0])))}
    if answer_type == "ranking":
        out = []
        for item in v:
            vals = list(item.values()) if isinstance(item, dict) else list(item)
            out.append([str(_scalar(vals[0])), _scalar(vals[1])])
        return out
    if answer_type == "table":
        return {"columns": list(v["columns"]), "rows": [[_scalar(x) for x in r] for r in v["rows"]]}
    raise ValueError(f"unknown answer type {answer_type!r}")




def agree(a: Any, b: Any, rel: float = FLOAT_REL) -> bool:
    """True when two canonical answers are equal (floats within ``rel`` relative, 1e-12 absolute)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(agree(a[k], b[k], rel) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(agree(x, y, rel) for x, y in zip(a, b, strict=True))
    return a == b


def is_degenerate(answer: Any) -> bool:
    """Empty, zero, null or all-equal answers: questions that do not discriminate."""
    if answer is None or answer == 0 or answer == [] or answer == {}:
        return True
    if isinstance(answer, float) and not math.isfinite(answer):
        return True
    if isinstance(answer, dict) and "value" not in answer:
        vals = list(answer.values())
        return len(vals) < 2 or all(agree(v, vals[0]) for v in vals)
    if isinstance(answer, list) and answer and isinstance(answer[0], list):
        return len(answer) < 2
    return False
