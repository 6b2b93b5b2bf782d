"""Duration and timestamp parsing for specs: ``15m``, ``6h``, ``2d``, ``1h30m``; ISO-8601 with zone."""

from __future__ import annotations

import re
from datetime import UTC, datetime

_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d|w)")
_WHOLE = re.compile(r"^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d|w))+$")
MAX_DURATION, MAX_DURATION_TEXT = 1000 * 366 * 86400.0, "366000d"


def parse_duration(text: str | int | float) -> float:
    """Return the duration in seconds. Accepts ``90s``, ``15m``, ``1h30m``, ``2d``, ``1w``.

    Raises ValueError with the accepted forms when the text is not a positive-or-zero duration.
    """
    if isinstance(text, bool):
        raise ValueError(f"{text!r} is not a duration; write e.g. '15m', '6h' or '2d'")
    if isinstance(text, int | float):
        if not abs(text) <= MAX_DURATION:
            raise ValueError(f"duration {text} must be a finite number of seconds up to 1000 years")
        if text < 0:
            raise ValueError(f"duration {text} is negative; durations must be >= 0")
        return float(text)
    s = str(text).strip().replace(" ", "")
    if s.startswith("-"):
        raise ValueError(f"duration '{text}' is negative; durations must be >= 0 (e.g. '15m')")
    if not _WHOLE.match(s):
        raise ValueError(f"'{text}' is not a duration; write e.g. '90s', '15m', '1h30m', '2d' or '1w'")
    seconds = float(sum(float(n) * _UNITS[u] for n, u in _PART.findall(s)))
    if not seconds <= MAX_DURATION:
        raise ValueError(f"duration '{text}' is longer than 1000 years; durations are limited to {MAX_DURATION_TEXT}")
    return seconds


def format_duration(seconds: float) -> str:
    """Render seconds as the shortest exact spec duration (``5400`` -> ``1h30m``)."""
    if seconds < 0:
        raise ValueError("negative duration")
    if seconds == 0:
        return "0s"
    out, rest = [], float(seconds)
    for unit in ("d", "h", "m", "s"):
        size = _UNITS[unit]
        n = int(rest // size)
        if n:
            out.append(f"{n}{unit}")
            rest -= n * size
    if rest > 1e-9:
        out.append(f"{round(rest * 1000)}ms")
    return "".join(out)


def parse_timestamp(text: str | datetime) -> datetime:
    """Parse an ISO-8601 timestamp that carries a zone and return it in UTC."""
    if isinstance(text, datetime):
        dt = text
    else:
        try:
            dt = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValueError(f"'{text}' is not an ISO-8601 timestamp; write e.g. '2026-01-01T00:00:00Z'") from exc
    if dt.tzinfo is None:
        raise ValueError(f"timestamp '{text}' has no time zone; add one, e.g. '2026-01-01T00:00:00Z'")
    return dt.astimezone(UTC)
