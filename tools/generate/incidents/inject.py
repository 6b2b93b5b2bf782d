"""Apply resolved incidents while a shard is generated.

Injection never draws from the generator's own random streams (incidents have their own), so the
world outside an incident's entities and window is byte-for-byte the world without incidents.
Values are changed before bounds and rounding, so injected data stays physically valid, and
formula keys computed from an injected key follow it (failures = attempts - successes).
"""

from __future__ import annotations

import numpy as np

from tools.common.durations import parse_duration
from tools.generate.incidents.resolve import ResolvedIncident
from tools.generate.measure import seasonal_wave
from tools.patterns.magnitude import parse_magnitude
from tools.patterns.registry import get_kind
from tools.spec.measurement import Measurement


def _entity_stats(x: np.ndarray, ent: np.ndarray, outside: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean and std of each entity's finite values outside the window."""
    ok = outside & np.isfinite(x)
    cnt = np.bincount(ent[ok], minlength=n).astype(float)
    s1 = np.bincount(ent[ok], weights=x[ok], minlength=n)
    s2 = np.bincount(ent[ok], weights=x[ok] ** 2, minlength=n)
    mean = np.divide(s1, cnt, out=np.zeros(n), where=cnt > 0)
    var = np.divide(s2, cnt, out=np.zeros(n), where=cnt > 0) - mean**2
    return mean, np.sqrt(np.maximum(var, 0))


def _seasonal(m: Measurement, t: np.ndarray, start_epoch: float) -> tuple[np.ndarray, np.ndarray]:
    add, mul = np.zeros(t.shape), np.ones(t.shape)
    for s in m.seasonality:
        period, peak = parse_duration(s.period), parse_duration(s.peak)
        wave = seasonal_wave(t, period, peak, start_epoch)
        if s.mode == "multiplicative":
            mul = mul * (1 + s.amplitude * wave)
        else:
            add = add + s.amplitude * wave
    return add, mul


class Injector:
    """The incidents of one generation run, indexed by entity type and key."""

    def __init__(self, incidents: list[ResolvedIncident], n_entities: dict[str, int], start_epoch: float):
        self.incidents = incidents
        self.start_epoch = start_epoch
        self.n_entities = n_entities
        self._lookup: dict[str, np.ndarray] = {}
        self.realized: dict[tuple[str, str], list] = {}  # (incident, key) -> [sum of deltas, finite n, rows]
        self.dropped: dict[str, int] = {}
        self.last_hits: list[tuple[str, np.ndarray]] = []
        self.touched: dict[str, set[int]] = {}
        for inc in incidents:
            mask = np.zeros(n_entities[inc.entity_type], bool)
            mask[inc.entities] = True
            self._lookup[inc.id] = mask

    def for_type(self, entity_type: str, flag: str | None = None) -> list[ResolvedIncident]:
        """The incidents on ``entity_type`` (with ``flag``, only those whose kind has that
        ``PatternKind`` flag set, e.g. ``removes_rows``)."""
        return [i for i in self.incidents if i.entity_type == entity_type
                and (flag is None or getattr(get_kind(i.kind), flag, False))]

    def affected(self, inc: ResolvedIncident, entity: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Rows of ``inc``'s entities inside its window."""
        return self._lookup[inc.id][entity] & (t >= inc.start) & (t < inc.end)

    def apply_values(self, entity_type: str, m: Measurement, x: np.ndarray, entity: np.ndarray, t: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
        """``x`` with every value incident on (entity_type, m.name) applied, in spec order (the hits are
        kept for ``record``)."""
        self.last_hits = []
        for inc in self.incidents:
            kind = get_kind(inc.kind)
            if inc.entity_type != entity_type or m.name not in inc.keys or kind.inject is None:
                continue
            hit = self.affected(inc, entity, t)
            if not hit.any():
                continue
            x = x.copy()
            mine = self._lookup[inc.id][entity]
            mean, std = _entity_stats(x, entity, mine & ~hit, self.n_entities[entity_type])
            e = entity[hit]
            if kind.amount_field:
                amount = np.full(e.shape, parse_magnitude(getattr(inc.model, kind.amount_field)).value)
            elif inc.effects:
                mag = inc.effects[m.name]
                amount = mag.resolve(mean[e], std[e]) if mag.unit != "units" else np.full(e.shape, mag.value)
            else:
                amount = np.zeros(e.shape)
            idx = np.flatnonzero(hit)
            new_run = np.r_[True, (e[1:] != e[:-1]) | (np.diff(idx) != 1)]
            first = np.maximum.accumulate(np.where(new_run, np.arange(e.size), 0))
            ctx = {"first": first, "mean": mean[e], "std": std[e]}
            if kind.needs_season:
                tt = t[hit]
                ctx["season"], ctx["season_factor"] = _seasonal(m, tt, self.start_epoch)
                shift = parse_duration(getattr(inc.model, "shift", "0s"))
                ctx["season_shifted"], ctx["season_factor_shifted"] = _seasonal(m, tt - shift, self.start_epoch)
            x[hit] = kind.inject(inc.model, x[hit], t[hit] - inc.start, inc.end - inc.start,
                                              amount, rng, ctx)
            self.last_hits.append((inc.id, hit))
        return x

    def record(self, key: str, base: np.ndarray, final: np.ndarray) -> None:
        """Account what the last ``apply_values`` call changed, after bounds and rounding."""
        for inc_id, hit in self.last_hits:
            delta = final[hit] - base[hit]
            ok = np.isfinite(delta)
            acc = self.realized.setdefault((inc_id, key), [0.0, 0, 0])
            acc[0] += float(delta[ok].sum())
            acc[1] += int(ok.sum())
            acc[2] += int(hit.sum())
        self.last_hits = []

    def note_rows(self, entity_type: str, entity: np.ndarray, t: np.ndarray) -> None:
        """Remember which targeted entities have rows inside each incident's window (the manifest
        lists those: a session that never overlapped the window was not affected)."""
        for inc in self.for_type(entity_type):
            hit = self.affected(inc, entity, t)
            if hit.any():
                self.touched.setdefault(inc.id, set()).update(np.unique(entity[hit]).tolist())

    def keep_rows(self, entity_type: str, entity: np.ndarray, t: np.ndarray) -> np.ndarray | None:
        """Rows that survive the incidents that remove rows (None when none touches this type)."""
        keep = None
        for inc in self.for_type(entity_type, "removes_rows"):
            hit = self.affected(inc, entity, t)
            self.dropped[inc.id] = self.dropped.get(inc.id, 0) + int(hit.sum())
            keep = ~hit if keep is None else keep & ~hit
        return keep
