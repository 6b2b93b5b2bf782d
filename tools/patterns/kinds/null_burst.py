"""null_burst: values are null (the row is there, the reading is not)."""

from typing import Literal

import numpy as np

from tools.patterns.params import KeysIncident
from tools.patterns.registry import PatternKind


class NullBurst(KeysIncident):
    """Values are null (the row is there, the reading is not)."""

    kind: Literal["null_burst"]


def null_burst(inc, x, tau, span, amount, rng, ctx):
    return np.full(x.shape, np.nan)


KIND = PatternKind(
    name="null_burst", model=NullBurst, rank=80, summary="rows stay, values become null", inject=null_burst,
    direction="null", phrase=lambda w: f"burst of missing {w.keys} values", placement="keys", placeable=True,
    words=r"missing (?:values|data)|gaps|nulls",
)
