"""flatline: a stuck sensor, the value at the window start repeats for the whole window."""

from typing import Literal

from tools.patterns.params import KeysIncident
from tools.patterns.registry import PatternKind


class Flatline(KeysIncident):
    """A stuck sensor: the value at the window start repeats for the whole window."""

    kind: Literal["flatline"]


def flatline(inc, x, tau, span, amount, rng, ctx):
    return x[ctx["first"]]


KIND = PatternKind(
    name="flatline", model=Flatline, rank=50, summary="a stuck sensor: the first in-window value repeats",
    inject=flatline, direction="flat", phrase=lambda w: f"stuck {w.keys} readings", placement="keys",
    placeable=True,
    words=r"stuck|flat ?line|(?:value|reading|sensor|data|signal)s?\s+(?:is\s+|are\s+|gets?\s+|went\s+)?frozen|"
          r"frozen\s+(?:value|reading|sensor|data|signal)",
)
