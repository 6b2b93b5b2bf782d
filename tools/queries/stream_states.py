"""Per-entity streaming forms of the stateful templates (partitioned bundles, tools/queries/stream.py).

An entity never spans parts, so everything a stateful template computes per entity (episodes,
first passages, sequences, transitions, row intervals) can be computed on one part at a time. Each
form here is ``(partial, fold)``: ``partial(frames_of_one_part, q)`` is the template's own
reference code up to (not including) its cross-entity reduction; ``fold(partials, q)`` consumes the
parts' results in part order and does that reduction once, so the answer is bit for bit the whole
table's:

- integer answers (entity counts, event counts, per-key counts) add; rankings by count are ranked
  from the summed counts of every path (each part lists all its paths, not only its top k);
- percentages of counts are computed from the summed integer counts;
- means (durations, first passages, times between events, measure means) take ``np.mean`` of the
  parts' values concatenated in part order, which is the whole table's array in its order;
- ``state_occupancy``'s weighted per-state sums continue the reference's sequential ``bincount``
  from the previous parts' totals (one part's intervals in memory at a time).

Peak memory: one part's needed columns plus the per-entity/per-episode values kept for a mean.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tools.queries.spec import QuerySpec
from tools.queries.stream_episodes import (
    Fold,
    Partial,
    between_fold,
    between_naive_part,
    between_part,
    conversion_fold,
    conversion_naive_fold,
    conversion_naive_part,
    conversion_part,
    delta_fold,
    delta_part,
    duration_fold,
    duration_naive_fold,
    duration_naive_part,
    duration_part,
    mean_of,
    occupancy_by_fold,
    occupancy_by_naive_fold,
    occupancy_by_naive_part,
    occupancy_by_part,
    occupancy_fold,
    occupancy_naive_fold,
    occupancy_naive_part,
    occupancy_part,
    parents_part,
    passage_naive_part,
    passage_part,
    union_size,
)

ALL_PATHS = 1 << 40  # ``k`` of a part's ranking: every path with its count


def sum_ints(parts: Iterable, q: QuerySpec) -> int | None:
    """Entity-local integer answers add over parts (None when the reading is undefined for the query:
    every part then says None)."""
    parts = list(parts)
    if parts and all(p is None for p in parts):
        return None
    return int(sum(int(p) for p in parts))


def sum_dicts(parts: Iterable, q: QuerySpec) -> dict | None:
    """Per-key counts add (a part without any is None); None when no key has a count."""
    out: dict[str, int] = {}
    for p in parts:
        for k, v in (p or {}).items():
            out[k] = out.get(k, 0) + int(v)
    return out or None


def all_paths(fn: Partial) -> Partial:
    """A ranking template's reference on one part, listing every path with its count."""
    return lambda frames, q: fn(frames, q.model_copy(update={"params": {**q.params, "k": ALL_PATHS}}))


def rank_counts(parts: Iterable, q: QuerySpec) -> list | None:
    """The top ``k`` paths of the summed counts, ties by the path text (``states.rank_paths``' order)."""
    counts: dict[str, int] = {}
    for p in parts:
        for text, n in p or []:
            counts[text] = counts.get(text, 0) + int(n)
    if not counts:
        return None
    order = sorted(counts, key=lambda t: (-counts[t], t))
    return [[t, counts[t]] for t in order[:int(q.p("k", 3))]]


_INTS = ("revisit_count", "threshold_without_outcome", "state_reached", "alternating_count", "sequence_match",
         "count_after_trigger", "count_in_state", "entity_count_streak")  # entity-local counts: the template's own
_DICTS = ("transition_counts", "transition_count_by", "reached_by")  # per-key entity-local counts
_RANKINGS = ("common_paths", "top_transitions")  # rankings by count


def own(fn: Partial, q: QuerySpec) -> Partial:
    """The template's own reference (or naive reading) on each part."""
    return fn


def fixed(partial: Partial) -> Callable[[Partial, QuerySpec], Partial]:
    """A partial written here (the reference's code up to its cross-entity reduction)."""
    return lambda fn, q: partial


def ranked(fn: Partial, q: QuerySpec) -> Partial:
    """The template's own ranking on each part, listing every path with its count."""
    return all_paths(fn)


# template (or "<template>/naive") → (partial's maker, fold over the parts in order). The maker gets the
# template's function and the query and returns the partial to run on each part (None: no streaming form
# for this query).
MakePartial = Callable[[Partial, QuerySpec], Partial | None]
STATEFUL: dict[str, tuple[MakePartial, Fold]] = {
    **{k + s: (own, sum_ints) for k in _INTS for s in ("", "/naive")},
    **{k + s: (own, sum_dicts) for k in _DICTS for s in ("", "/naive")},
    **{k + s: (ranked, rank_counts) for k in _RANKINGS for s in ("", "/naive")},
    "state_duration": (fixed(duration_part), duration_fold),
    "state_duration/naive": (fixed(duration_naive_part), duration_naive_fold),
    "first_passage_time": (fixed(passage_part), lambda parts, q: mean_of(list(parts))),
    "first_passage_time/naive": (fixed(passage_naive_part), lambda parts, q: mean_of(list(parts))),
    "avg_time_between": (fixed(between_part), between_fold),
    "avg_time_between/naive": (fixed(between_naive_part), between_fold),
    "conversion_rate": (fixed(conversion_part), conversion_fold),
    "conversion_rate/naive": (fixed(conversion_naive_part), conversion_naive_fold),
    "state_occupancy": (fixed(occupancy_part), occupancy_fold),
    "state_occupancy/naive": (fixed(occupancy_naive_part), occupancy_naive_fold),
    "occupancy_by": (fixed(occupancy_by_part), occupancy_by_fold),
    "occupancy_by/naive": (fixed(occupancy_by_naive_part), occupancy_by_naive_fold),
    "cross_window_delta": (fixed(delta_part(False)), delta_fold(False)),
    "cross_window_delta/naive": (fixed(delta_part(True)), delta_fold(True)),
    "parent_sequence_count": (fixed(parents_part), union_size),
    "parent_sequence_count/naive": (own, sum_ints),
}
