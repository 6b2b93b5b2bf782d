"""Where described incidents meet each other and the default incidents: two described ones on the
same entity type and time stack (``compose: add``, both were asked for); a default of a described
kind is replaced, and one whose window meets a described one moves to a free day."""

from __future__ import annotations

import re

from tools.common.durations import parse_duration


def stack(incidents: list[dict], decisions: list[str]) -> None:
    """Two described incidents on the same entity type whose windows overlap stack (compose: add)."""
    for j, b in enumerate(incidents):
        for a in incidents[:j]:
            (s1, e1), (s2, e2) = window_span(a), window_span(b)
            if a["target"]["entity"] == b["target"]["entity"] and s1 < e2 and s2 < e1:
                b["compose"] = "add"
                decisions.append(f"incident {b['id']}: overlaps {a['id']} on {a['target']['entity']}; both asked for, "
                                 "so their effects stack (compose: add)")
                break


def window_span(inc: dict) -> tuple[float, float]:
    """(start, end) in seconds from the first midnight of a ``day N HH:MM`` window."""
    m = re.match(r"day (\d+)(?: (\d\d):(\d\d))?", inc["window"]["start"])
    s = (int(m.group(1)) - 1) * 86400 + int(m.group(2) or 0) * 3600 + int(m.group(3) or 0) * 60
    return s, s + parse_duration(inc["window"]["duration"])


def with_described(described: list[dict], defaults: list[dict], days: int, decisions: list[str]) -> list[dict]:
    """The described incidents plus the defaults they leave: a default of a kind described on the same
    entity type is replaced, one whose window meets a described one on its entity type moves to a
    free day (or is left out when none is free)."""
    taken = {(d["kind"], d["target"]["entity"]) for d in described}
    out = list(described)
    for inc in defaults:
        if (inc["kind"], inc["target"]["entity"]) in taken:
            decisions.append(f"default incident {inc['id']}: replaced by the described {inc['kind']}")
            continue
        same = [d for d in described if d["target"]["entity"] == inc["target"]["entity"]]
        s, e = window_span(inc)
        clock = inc["window"]["start"].split()[2] if len(inc["window"]["start"].split()) > 2 else "00:00"
        for day in [int(inc["window"]["start"].split()[1]), *range(1, days + 1)]:
            moved = {**inc["window"], "start": f"day {day} {clock}"}
            s, e = window_span({"window": moved})
            if e <= days * 86400 and not any(a < e and s < b for a, b in map(window_span, same)):
                if moved != inc["window"]:
                    decisions.append(f"default incident {inc['id']}: moved to day {day} (its day has a described "
                                     "incident on the same entity type)")
                inc["window"] = moved
                out.append(inc)
                break
        else:
            decisions.append(f"default incident {inc['id']}: left out (no day free of the described incidents)")
    return out
