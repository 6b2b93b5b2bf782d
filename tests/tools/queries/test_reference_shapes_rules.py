"""The shape rules' vectorized forms (tools/queries/reference/shapes.py) against their definitions written
as plain loops, on random series: run lengths and level shifts, edge cases (short series, flat runs,
equal values) included."""

from __future__ import annotations

import numpy as np

from tools.queries.reference import shapes
from tools.queries.spec import QuerySpec


def _runs_by_hand(flags) -> list[int]:
    out, n = [], 0
    for f in flags:
        if f:
            n += 1
        elif n:
            out.append(n)
            n = 0
    return [*out, n] if n else out


def _level_shift_by_hand(x, span: int, delta: float) -> bool:
    for i in range(span, len(x) - span + 1):
        before, after = x[i - span:i], x[i:i + span]
        if min(after) > max(before) + delta or max(after) < min(before) - delta:
            return True
    return False


def _q(**params) -> QuerySpec:
    return QuerySpec(template="shape_level_shift", table="t", entity="e", time="ts", params=params)


def test_vectorized_rules_match_their_definitions():
    rng = np.random.default_rng(7)
    shifts = 0
    for _ in range(2000):
        n, span = int(rng.integers(0, 40)), int(rng.integers(1, 6))
        delta = float(rng.choice([0.0, 0.5, 2.0]))
        step = (np.arange(n) >= rng.integers(0, 40)) * float(rng.choice([0.0, 5.0]))
        x = np.round(rng.normal(size=n) * 2, 1) + step
        flags = rng.random(n) > 0.5
        assert shapes.runs(flags) == _runs_by_hand(flags)
        want = _level_shift_by_hand(list(x), span, delta)
        assert shapes.has_level_shift(x, _q(span=span, delta=delta)) == want, (list(x), span, delta)
        shifts += want
    assert 200 < shifts < 1800  # both answers are well represented
