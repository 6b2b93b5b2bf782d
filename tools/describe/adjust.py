"""Re-place or strengthen an incident whose pattern check failed (the injector's retry step).

``detectable`` failed → the effect is too weak: magnitudes × 1.5. ``localized`` failed → the
baseline looks like the incident somewhere else: magnitudes × 1.5 as well (a stronger incident
stands out from natural excursions). Anything else → move the window one day later, if the
horizon allows. Pure function on the spec's dict form.
"""

from __future__ import annotations

import re
from typing import Any

_MAG = re.compile(r"^([+-]?)(\d+(?:\.\d+)?)(sigma|%)?$")


def scale_magnitude(value: float | str, factor: float) -> float | str:
    """'8sigma' → '12sigma', '+400%' → '+600%', 10.0 → 15.0 (a relative drop is capped at -95%)."""
    if isinstance(value, int | float):
        return round(float(value) * factor, 6)
    m = _MAG.match(str(value).strip())
    if not m:
        return value
    sign, num, unit = m.group(1), float(m.group(2)) * factor, m.group(3) or ""
    if unit == "%" and sign == "-":
        num = min(num, 95.0)
    text = f"{num:.6f}".rstrip("0").rstrip(".")  # never "7.2e+07": a magnitude is a plain number
    return f"{sign}{text}{unit}"


def adjust_incident(spec: dict[str, Any], incident_id: str, failed: list[str], horizon_days: int) -> str | None:
    """Change the incident in place; a sentence saying what changed, or None when nothing could."""
    inc = next((i for i in spec.get("incidents", []) if i.get("id") == incident_id), None)
    if inc is None:
        return None
    if inc.get("effects") and ({"detectable", "localized"} & set(failed)):
        inc["effects"] = {k: scale_magnitude(v, 1.5) for k, v in inc["effects"].items()}
        return f"{incident_id}: {', '.join(failed)} failed; effects strengthened to {inc['effects']}"
    start = str(inc.get("window", {}).get("start", ""))
    m = re.match(r"^day (\d+) (\d\d:\d\d)$", start)
    if m and int(m.group(1)) < horizon_days:
        inc["window"]["start"] = f"day {int(m.group(1)) + 1} {m.group(2)}"
        return f"{incident_id}: {', '.join(failed)} failed; moved to {inc['window']['start']}"
    return None
