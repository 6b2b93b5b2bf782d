"""Additive identities between count columns (``RRC_ConnEstabAtt = RRC_ConnEstabSucc + RRC_ConnEstabFail``):
the total becomes a formula measurement, so regenerated rows keep the identity a KPI question relies on."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from tools.spec.measurement import Measurement, NoNoise

SCREEN_ROWS = 20_000


def _identity(frame: pd.DataFrame, total: str, a: str, b: str) -> int | None:
    """The constant k with total = a + b + k on every row (up to 1 from rounding), else None."""
    d = (frame[total] - frame[a] - frame[b]).to_numpy(dtype=float)
    d = d[np.isfinite(d)]
    if d.size == 0 or np.ptp(d) > 1 or np.any(np.mod(d, 1) != 0):
        return None
    return int(np.rint(np.median(d)))


def find_sums(frame: pd.DataFrame, counts: list[str]) -> dict[str, tuple[str, str, int]]:
    """total -> (part, part, constant) for count columns that are the sum of two others (no chains)."""
    screen = frame.iloc[:SCREEN_ROWS]
    out: dict[str, tuple[str, str, int]] = {}
    used: set[str] = set()
    by_mean = sorted(counts, key=lambda c: -float(frame[c].mean()))  # the largest column is the total
    for total in by_mean:
        if total in used:
            continue
        for a, b in combinations([c for c in counts if c != total and c not in out], 2):
            if _identity(screen, total, a, b) is not None and (k := _identity(frame, total, a, b)) is not None:
                out[total] = (a, b, k)
                used.update((total, a, b))
                break
    return out


def as_formula(m: Measurement, a: str, b: str, k: int) -> Measurement:
    """``m`` derived from its parts: level, noise, seasonality and states come from them."""
    formula = f"{a} + {b}" + (f" + {k}" if k > 0 else f" - {-k}" if k < 0 else "")
    return m.model_copy(update={"formula": formula, "base": 0.0, "trend": 0.0, "seasonality": [],
                                "noise": NoNoise(kind="none"), "states": {}, "attribute_effects": []})
