"""The ``entity`` path of the streaming reference executor (tools/queries/stream.py): per-entity forms of
the stateful and incident templates (and premises and the other families' naive readings,
tools/queries/stream_extra.py), one part at a time, for worlds too big to read whole.

``ENTITY`` maps a template (or ``"<template>/naive"``) to ``(make, fold)``: ``make(fn, q)`` gives the
partial to run on each part (``fn`` is the template's own function; None: no streaming form for this
query) and ``fold(partials, q)`` reduces the parts' results, consumed in part order
(tools/queries/stream_states.py, stream_episodes.py, stream_incident.py, stream_extra.py). A template with no form on
a table above ``COLUMNS_MAX_ROWS`` is not answered there (``NotStreamed``): reading its columns whole
is what does not fit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from tools.queries.reference.frames import Frames
from tools.queries.spec import QuerySpec
from tools.queries.stream_episodes import Fold, Partial
from tools.queries.stream_extra import EXTRA_ENTITY
from tools.queries.stream_frames import SliceFrames
from tools.queries.stream_incident import INCIDENT, INCIDENT_SELECTION
from tools.queries.stream_states import STATEFUL

ENTITY: dict[str, tuple[Callable[[Partial, QuerySpec], Partial | None], Fold]] = {**STATEFUL, **INCIDENT,
                                                                                   **EXTRA_ENTITY}
ENTITY_SELECTION = frozenset(INCIDENT_SELECTION)  # entity-path templates that read only the selected rows
STORE = 16  # naive readings and prefetched answers kept from the last passes
COLUMNS_MAX_ROWS = 50_000_000  # above, a template without a streaming form is not answered (``NotStreamed``)


class NotStreamed(ValueError):
    """A template without a streaming form asked on a table too big to read whole."""


class Refusing(SliceFrames):
    """Frames that refuse to read one table (a function that does not read it still answers)."""

    def __init__(self, bundle: Path, table: str, why: str):
        super().__init__(bundle)
        self._refused, self._why = table, why

    def _load(self, name: str) -> pd.DataFrame:
        if name == self._refused:
            raise NotStreamed(self._why)
        return super()._load(name)


class _Failed:
    """A part's naive partial that raised (the naive reading raises it when asked)."""

    def __init__(self, exc: Exception):
        self.exc = exc


def answer_key(template: str, q: QuerySpec) -> tuple:
    """Where ``entity_pass`` keeps a prefetched answer of ``q``."""
    return ("answer", template, q.model_dump_json())


def keep(store: dict, key: Any, value: Any) -> None:
    while len(store) >= STORE:  # screening re-runs come between an answer and its naive reading
        store.pop(next(iter(store)))
    store[key] = value


def entity_pass(parts: Callable[[], Iterator[Frames]], t: Any, q: QuerySpec, naive: bool,
                fn: Partial, store: dict, also: Iterable[QuerySpec] = ()) -> tuple[bool, Any]:
    """``(True, answer)`` from one pass over ``parts()`` with the per-entity form of ``t`` (its naive
    reading if ``naive``), or ``(False, None)`` when there is none for ``q``. Riding along on the same
    parts: the naive reading (asked right after the answer) and the answers of the queries in ``also``
    (a template's screening re-runs), kept in ``store`` for the calls that ask them (an exception a rider
    raised is kept instead, raised again when its answer is asked)."""
    key = f"{t.name}/naive" if naive else t.name
    make, fold = ENTITY[key]
    memo = (t.name, q.model_dump_json())
    if (hit := memo if naive else answer_key(t.name, q)) in store:
        got = store.pop(hit)
        if isinstance(got, Exception):
            raise got
        return True, got
    if (partial := make(fn, q)) is None:
        return False, None
    riders: list[tuple[Any, Partial | Exception, Fold, QuerySpec, list]] = []
    side = ENTITY.get(f"{t.name}/naive") if not naive and t.naive is not None else None
    if side and (side_partial := side[0](t.naive, q)) is not None:
        riders.append((memo, side_partial, side[1], q, []))
    for x in also:
        try:
            if (p := make(fn, x)) is not None:  # without a form, its own run takes another path
                riders.append((answer_key(t.name, x), p, fold, x, []))
        except ValueError as exc:  # this query has no answer (e.g. not expressible)
            riders.append((answer_key(t.name, x), exc, fold, x, []))

    def with_riders() -> Iterable:
        for f in parts():
            for _, p, _, x, got in riders:
                if callable(p) and not (got and isinstance(got[-1], _Failed)):
                    try:
                        got.append(p(f, x))
                    except Exception as exc:  # noqa: BLE001 - raised again when this answer is asked
                        got.append(_Failed(exc))
            yield partial(f, q)

    answer = fold(with_riders(), q)
    for k, p, rfold, x, got in riders:
        if isinstance(p, Exception):
            keep(store, k, p)
            continue
        failed = next((r.exc for r in got if isinstance(r, _Failed)), None)
        try:
            value = failed if failed is not None else rfold(iter(got), x)
        except Exception as exc:  # noqa: BLE001 - as above
            value = exc
        keep(store, k, value)
    return True, answer
