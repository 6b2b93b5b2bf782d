"""Time-shaped parts of a fit: series numbers (several rows of one entity at the same time), arrivals of
entities that start at different times, and the spec's start and horizon."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from tools.common.durations import format_duration
from tools.infer.profile import Profile, seconds
from tools.spec.entity import Arrival


def series_numbers(p: Profile, t: np.ndarray) -> np.ndarray:
    """A series number per row: the entity, split when several rows share an (entity, time)."""
    rank = pd.DataFrame({"e": p.entity_codes, "t": t}).groupby(["e", "t"], sort=False).cumcount().to_numpy()
    return p.entity_codes * (int(rank.max()) + 1) + rank


def fit_arrival(t: np.ndarray, codes: np.ndarray, start: float) -> Arrival | None:
    first = np.r_[True, codes[1:] != codes[:-1]]
    last = np.r_[codes[1:] != codes[:-1], True]
    t0 = t[first]
    lives = t[last] - t0
    life = float(lives.max()) + 1
    if np.ptp(t0) == 0 or np.median(lives) >= 0.5 * np.ptp(t):  # all start together, or live through the span
        return None
    hours = np.bincount(((t0 % 86400) // 3600).astype(int), minlength=24).astype(float)
    return Arrival(hourly_weights=[round(h / hours.sum() * 24, 3) for h in hours],
                   max_duration=format_duration(math.ceil(life / 60) * 60))


def time_frame(profiles: list[Profile]) -> tuple[float, float]:
    """Spec start (earliest timestamp, epoch seconds) and horizon (seconds) covering every table."""
    lo, hi = [], []
    for p in profiles:
        if p.emission:
            t = seconds(p.table.frame[p.table.time.column])
            first = float(t.min())
            lo.append(first - first % p.cadence if p.jitter else first)  # a jittered grid starts on a tick
            hi.append(float(t.max()) + (p.cadence or 0.0))
    if not lo:
        return datetime(2026, 1, 1, tzinfo=UTC).timestamp(), 3 * 86400.0
    start = min(lo)
    return start, max(max(hi) - start, 60.0)
