"""Streaming forms of the shape, detection, claim, premise, forecast and cross-table incident templates
on partitioned bundles (tools/queries/stream.py), so that a world too big to read whole still gets
these families' questions.

- **selection** (``EXTRA_SELECTION``): shapes, detections and claims read only the rows a window (and
  the entity filter) selects. Each part contributes those rows (needed columns), and the reference runs
  once on their concatenation: bit for bit the whole table's answer. Shapes and claims select their
  window without the event filter (they apply none); detections select the hull of the reference and
  question windows (their thresholds come from the reference window, their flags from the other).
- **entity** (``EXTRA_ENTITY``): ``false_premise`` counts the rows that hold its premise (entity-local:
  parts' counts add); its naive reading and ``unanswerable``'s (``fabricated``) add counts or
  concatenate values in part order; ``forecast_*``'s seasonal-naive reading concatenates the previous
  day's selected rows in part order. ``forecast_*`` itself reads only holdout/ and ``unanswerable``
  only the parts' schemas: neither reads a table, so both answer on any world.
- **rewritten** (``REWRITTEN``): ``incident_cross_table`` *is* ``incident_affected_count`` on the
  related table (its naive reading: on the incident's own table), which has an entity form there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pandas as pd

from tools.queries.reference import claims, forecast
from tools.queries.reference.incident_cross import shift_query, source_query
from tools.queries.spec import QuerySpec, Window
from tools.queries.stream_states import fixed


def _no_events(q: QuerySpec) -> QuerySpec:
    return q.model_copy(update={"event_filter": []})


def _hull(q: QuerySpec) -> QuerySpec:
    """The detection query's rows: both its windows (reference and question) and every row in between."""
    if q.window is None or q.p("ref") is None:
        return q.model_copy(update={"event_filter": [], "window": None, "while_": None})
    ref = Window.model_validate(q.p("ref"))
    a, b = sorted((ref, q.window), key=lambda w: pd.Timestamp(w.start))
    end = max((a, b), key=lambda w: (pd.Timestamp(w.end), w.closed))
    hull = Window(start=a.start, end=end.end, closed=a.closed or b.closed or end.closed)
    return q.model_copy(update={"event_filter": [], "window": hull, "while_": None})


SHAPES = ("shape_spike", "shape_rise", "shape_plateau", "shape_oscillation", "shape_level_shift")
# template (or "<template>/naive") → the query whose selected rows its reference reads
EXTRA_SELECTION: dict[str, Callable[[QuerySpec], QuerySpec]] = {
    **{n: _no_events for n in SHAPES}, "shape_spike/naive": _no_events,
    **{n + s: _hull for n in ("detect_entities", "detect_count") for s in ("", "/naive")},
    "claim_check": _no_events,
}


def _premise_fold(parts: Iterable, q: QuerySpec) -> str | None:
    held = [p for p in parts if p is not None]  # an event premise's entity has its rows in one part
    if not held and q.p("kind") == "event":
        return None
    return claims.premise_answer(int(sum(held)), q)


def _fabricated_fold(parts: Iterable, q: QuerySpec) -> str | None:
    return claims.fabricated_text(list(parts), q)


def _naive_forecast_part(frames, q: QuerySpec) -> pd.DataFrame:
    rows = forecast.naive_rows(frames, q)
    return rows[[q.p("key")]] if q.template == "forecast_mean" else rows.iloc[:, :0]


def _naive_forecast_fold(parts: Iterable, q: QuerySpec):
    parts = list(parts)
    return forecast.aggregate_rows(pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(), q)


# template (or "<template>/naive") → (partial's maker, fold), as tools/queries/stream_states.STATEFUL
EXTRA_ENTITY = {
    "false_premise": (fixed(claims.premise_held), _premise_fold),
    **{n + "/naive": (fixed(claims.fabricated_part), _fabricated_fold) for n in ("false_premise", "unanswerable")},
    **{n + "/naive": (fixed(_naive_forecast_part), _naive_forecast_fold)
       for n in ("forecast_mean", "forecast_count")},
}

# template (or "<template>/naive") → (the template that answers it, its query)
REWRITTEN: dict[str, tuple[str, Callable[[QuerySpec], QuerySpec]]] = {
    "incident_cross_table": ("incident_affected_count", shift_query),
    "incident_cross_table/naive": ("incident_affected_count", source_query),
}
