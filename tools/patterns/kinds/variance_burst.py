"""variance_burst: extra Gaussian noise with the magnitude as its standard deviation."""

from typing import Literal

import numpy as np

from tools.patterns.params import EffectsIncident
from tools.patterns.registry import PatternKind


class VarianceBurst(EffectsIncident):
    """Extra Gaussian noise with the magnitude as its standard deviation."""

    kind: Literal["variance_burst"]


def variance_burst(inc, x, tau, span, amount, rng, ctx):
    return x + np.abs(amount) * rng.standard_normal(x.shape)


KIND = PatternKind(
    name="variance_burst", model=VarianceBurst, rank=90, summary="extra Gaussian noise (magnitude = its std)",
    inject=variance_burst, direction="variance", phrase=lambda w: f"burst of {w.keys} volatility",
    placement="effects", placeable=True, effect_way="spread", words=r"noise|jitter burst|noisy",
    in_descriptions=False,
)
