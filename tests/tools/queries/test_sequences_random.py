"""Sequence templates on random small worlds: both executors must agree on every spec.

Streams of 0-15 rows per entity with null states and null measurements, random windows (also
cutting through runs), entity filters through a static table, every template and parameter shape.
"""

import numpy as np
import pandas as pd
import pytest

from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window


def at(minute: int) -> str:
    return f"2026-01-01T{minute // 60:02d}:{minute % 60:02d}:00Z"


def w(a: int, b: int) -> Window:
    return Window(start=at(a), end=at(b))


def ev(template, **kw):
    return QuerySpec(template=template, table="events", entity="sid", time="ts", **kw)

# ---------------------------------------------------------------- random worlds
def _random_world(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    rows = []
    for e in range(6):
        t = int(rng.integers(0, 30))
        for _ in range(int(rng.integers(0, 16))):
            t += int(rng.integers(1, 6))
            lab = rng.choice(["a", "b", "c", "n"], p=[0.4, 0.3, 0.2, 0.1])
            v = float(rng.integers(0, 10)) if rng.random() > 0.1 else None
            rows.append((f"E{e}", at(t), None if lab == "n" else str(lab), v))
    df = pd.DataFrame(rows, columns=["sid", "ts", "action", "v"])
    groups = pd.DataFrame({"sid": [f"E{e}" for e in range(6)], "grp": ["x", "y"] * 3})
    return df, groups


def _random_specs(seed: int) -> list[QuerySpec]:
    rng = np.random.default_rng(1000 + seed)

    def p():
        if rng.random() < 0.7:
            return {"column": "action", "op": "==", "value": str(rng.choice(["a", "b", "c"]))}
        return {"column": "v", "op": str(rng.choice([">", "<="])), "value": int(rng.integers(2, 8))}

    def win():
        if rng.random() < 0.3:
            return None
        a = int(rng.integers(0, 60))
        return Window(start=at(a), end=at(a + int(rng.integers(5, 60))))

    def flt():
        g = str(rng.choice(["x", "y"]))
        return None if rng.random() < 0.6 else EntityFilter(
            predicates=[Predicate(column="grp", op="==", value=g)], table="groups", key="sid", ref="sid")

    states = [{"column": "action"}, {"predicate": {"column": "v", "op": ">", "value": 4}}]
    out = []
    for _ in range(3):
        st = states[int(rng.integers(0, 2))]
        vals = ["a", "b", "c", "<null>"] if "column" in st else ["in", "out"]
        va, vb = (str(x) for x in rng.choice(vals, size=2, replace=False))
        out += [
            ev("avg_time_between", window=win(), entity_filter=flt(), params={"a": p(), "b": p()}),
            ev("sequence_match", window=win(), entity_filter=flt(),
               params={"steps": [p() for _ in range(int(rng.integers(2, 5)))]}),
            ev("count_after_trigger", window=win(), entity_filter=flt(),
               params={"x": p(), "y": p(), "horizon_s": int(rng.choice([60, 120, 300]))}),
            ev("conversion_rate", window=win(), entity_filter=flt(), params={"a": p(), "b": p()}),
            ev("count_in_state", window=win(), entity_filter=flt(),
               params={"x": p(), "open": p(), "close": p() if rng.random() < 0.8 else None}),
            ev("state_reached", window=win(), entity_filter=flt(), params={"state": st, "value": va}),
            ev("alternating_count", window=win(), entity_filter=flt(),
               params={"state": st, "a": va, "b": vb, "k": [None, 1, 2][int(rng.integers(0, 3))]}),
            ev("cross_window_delta", window=win() or w(30, 60), entity_filter=flt(),
               params={"measure": "entries", "state": st, "value": va, "offset_s": int(rng.choice([300, 1200]))}),
            ev("cross_window_delta", window=win() or w(30, 60), entity_filter=flt(),
               params={"measure": str(rng.choice(["events", "mean"])), "event": p(), "key": "v", "offset_s": 600}),
        ]
    return out


@pytest.mark.parametrize("seed", range(8))
def test_executors_agree_on_random_worlds(tiny, seed):
    df, groups = _random_world(seed)
    bundle = tiny({"events": df, "groups": groups})
    for spec in _random_specs(seed):
        bundle.answer(spec)  # asserts pandas == SQL
