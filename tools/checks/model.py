"""The check record, the thresholds and the SQL quoting helpers of the checks (the opened bundle they
run against: ``tools.bundle.opened.Bundle``)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel

from tools.sqlsafe import quote_literal, quote_qualified

# ---- thresholds (documented in tools/checks/__init__.py and README "Checks") -----------------------
Z_THRESHOLD = 3.0          # |robust z| of the window's median residual (level kinds)
RMS_RATIO = 2.0            # window residual RMS / baseline residual scale (variance, decoupled, seasonality)
NULL_FRACTION = 0.9        # share of null values in the window (null_burst)
ARRIVAL_Z = 3.0            # z of the arrival count vs the same clock window on other days (flash crowds)
BEHAVIOR_P = 1e-3          # chi-square p-value of the label distribution, in window vs outside
BEHAVIOR_TV = 0.1          # ... and total-variation distance at least this
DWELL_LOG_RATIO = 0.405    # or |log| of the dwell-time ratio >= log(1.5) (event tables), same p
DETECT_FRACTION = 0.9      # share of the affected entities that must show the deviation, per key
FP_BOUND = 0.05            # localized: at most this share of control tests may show the deviation
DETECT_BOUND_SIGMA = 6.0   # documented detectability bound (level kinds), in baseline std
MAX_AFFECTED = 20          # affected entities examined per incident (evenly spaced sample)
MAX_PEERS = 50             # unaffected peers examined per incident (evenly spaced sample)
MIN_BASELINE_ROWS = 8      # an entity needs this many out-of-window rows to have a baseline


class Check(BaseModel):
    """One row of checks.json."""

    name: str
    table: str
    kind: Literal["quality", "pattern"]
    passed: bool
    detail: str
    sql: str
    incident: str | None = None


def qi(name: str) -> str:
    """A quoted SQL identifier; ``schema.table`` is quoted part by part (``tools.sqlsafe``)."""
    return quote_qualified(*name.split(".", 1))


def key_sql(key: str | tuple[str, ...] | list[str], alias: str = "") -> str:
    """An entity's id in SQL: its id column, or the columns of a composite key joined with "/"
    (``RTR_001/eth2``: the label incidents.json, answers and the keyed question views use); ``alias``
    qualifies each column (``m.``)."""
    pre = f"{alias}." if alias else ""
    if isinstance(key, str) or len(key) == 1:
        return pre + qi(key if isinstance(key, str) else key[0])
    from tools.spec.entity import KEY_SEPARATOR

    return "(" + f" || {ql(KEY_SEPARATOR)} || ".join(f"CAST({pre}{qi(c)} AS VARCHAR)" for c in key) + ")"


def rec_key(rec: dict) -> str | tuple[str, ...]:
    """The key of an incident record's entities: ``id_column``, or with ``key_parts`` (a composite key)
    the tuple of key columns (``key_sql`` of it matches the record's ``entities`` labels)."""
    parts = rec.get("key_parts") or ()
    return (rec["id_column"], *parts) if parts else rec["id_column"]


def ql(value: object) -> str:
    """A SQL literal for a number, or for anything else as its text (``tools.sqlsafe``)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return quote_literal(value)
    return quote_literal(str(value))


def in_list(values) -> str:
    return "(" + ", ".join(ql(v) for v in values) + ")" if len(values) else "(NULL)"


def ts_literal(iso: str) -> str:
    return f"TIMESTAMPTZ {ql(iso)}"


def iso_to_us(iso: str) -> int:
    return int(round(datetime.fromisoformat(iso).timestamp() * 1_000_000))


def us_to_iso(us: int | float) -> str:
    from datetime import UTC

    return datetime.fromtimestamp(float(us) / 1e6, UTC).isoformat().replace("+00:00", "Z")
