"""Incident magnitudes: ``12`` (units of the key), ``"3sigma"`` (multiples of the entity's own
baseline standard deviation) or ``"-40%"`` (relative to the entity's own baseline mean)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_RX = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?)\s*(sigma|σ|%)?\s*$")


@dataclass(frozen=True)
class Magnitude:
    value: float
    unit: str  # "units" | "sigma" | "relative"

    def resolve(self, mean: float, std: float) -> float:
        """The size in units of the key for an entity with this baseline mean and std."""
        if self.unit == "sigma":
            return self.value * std
        if self.unit == "relative":
            return self.value * abs(mean)
        return self.value


def parse_magnitude(text: float | int | str) -> Magnitude:
    """``5`` / ``"-2.5"`` -> units, ``"3sigma"`` -> sigma, ``"+40%"`` -> relative (0.4)."""
    if isinstance(text, bool):
        raise ValueError("a magnitude is a number, '3sigma' or '+40%'")
    if isinstance(text, int | float):
        return Magnitude(float(text), "units")
    m = _RX.match(str(text))
    if not m:
        raise ValueError(f"'{text}' is not a magnitude; write a number in the key's units (12), "
                         "a multiple of the entity's own std ('3sigma') or a relative change ('-40%')")
    value, unit = float(m.group(1)), m.group(2)
    if unit == "%":
        return Magnitude(value / 100.0, "relative")
    if unit in ("sigma", "σ"):
        return Magnitude(value, "sigma")
    return Magnitude(value, "units")
