"""Fidelity: regenerate data from the fitted spec and compare it with the input, column by column
(KS statistic for numeric columns, total-variation distance for labels), plus cadence and the
transition-matrix distance of each state machine."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from tools.common.durations import format_duration
from tools.infer.profile import Profile, grid, seconds
from tools.infer.rowcodes import clear, label_shares, ordered, seed_order, state_codes
from tools.infer.skew import children_per_parent
from tools.spec.model import Spec

KS_MAX = 0.15          # numeric columns: two-sample KS statistic
TV_MAX = 0.10          # label columns: total-variation distance of the label shares
TRANSITION_MAX = 0.10  # state machine: visit-weighted mean total-variation distance of transition rows
CADENCE_REL = 0.10     # event tables: median gap within 10%; periodic tables: the same cadence
ROWS_REL = 0.10        # row count within 10%
SAMPLE = 20_000
REPLICATE_SCALE = 10.0
REPLICATE_ROWS = 100_000


def effective_rows(values: pd.Series, ent: np.ndarray) -> int:
    """Rows as independent draws (Kish's design effect): when entities differ in level, rows of one entity
    are not independent, so ``n / (1 + (m - 1) * ICC)`` with ``m`` rows per entity and ICC the share of
    the variance between entity means."""
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    ok = np.isfinite(x)
    ent, x = ent[ok], x[ok]
    n = x.size
    if n < 2 or np.var(x) <= 0:
        return n
    counts = np.bincount(ent)
    means = np.bincount(ent, weights=x)[counts > 0] / counts[counts > 0]
    icc = min(max(float(np.var(means) / np.var(x)), 0.0), 1.0)
    m = n / max(means.size, 1)
    return max(int(n / (1 + (m - 1) * icc)), means.size, 1)


def sampling_floor(n: int, m: int) -> float:
    """The two-sample KS critical value at alpha = 0.01 (1.63 * sqrt((n + m) / (n m))): with few entities
    or rows a distance below it is indistinguishable from sampling noise, so thresholds never go below it."""
    return 1.63 * float(np.sqrt((n + m) / (n * m))) if n and m else 1.0


@dataclass
class FidelityRow:
    """One comparison of the fidelity table: ``value`` passes when it is at most ``threshold``."""

    table: str
    column: str
    metric: str
    value: float
    threshold: float
    detail: str = ""

    @property
    def ok(self) -> bool:
        """Whether the regenerated data is within the threshold."""
        return self.value <= self.threshold + 1e-12


def regenerate(spec: Spec, seed: int | None = None, scale: float = 1.0) -> dict[str, pd.DataFrame]:
    """Every table of ``spec`` generated in memory (one shard per entity type, no incidents)."""
    from tools.common.seeds import EMISSION, SIMULATION, rng_for
    from tools.generate import build_populations
    from tools.generate.behaviour import build_behaviour
    from tools.generate.emit import shard_table, static_table

    seed = spec.seed if seed is None else seed
    pops = build_populations(spec, seed, scale)
    out = {}
    for e in spec.entities:
        pop = pops[e.name]
        if e.emission is not None and e.static_table_name:
            out[e.static_table_name] = static_table(pop).to_pandas()
        if e.emission is None:
            table = static_table(pop)
        else:
            b = build_behaviour(pop) if e.states else None
            table = shard_table(pop, b, np.arange(pop.n_units), spec.start_dt.timestamp(),
                                rng_for(seed, e.name, SIMULATION, 0), rng_for(seed, e.name, EMISSION, 0))
        frame = table.to_pandas()
        for c in frame.columns:
            if isinstance(frame[c].dtype, pd.CategoricalDtype):
                frame[c] = frame[c].astype(object).where(frame[c].notna(), None)
        out[e.table_name] = frame
    return out


def _sample(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return x if x.size <= SAMPLE else rng.choice(x, SAMPLE, replace=False)


def ks(a: pd.Series, b: pd.Series, seed: int = 0) -> float:
    """Two-sample KS statistic on (at most SAMPLE-row seeded samples of) the finite values."""
    rng = np.random.default_rng(seed)
    x = pd.to_numeric(a, errors="coerce").to_numpy(dtype=float)
    y = pd.to_numeric(b, errors="coerce").to_numpy(dtype=float)
    x, y = x[np.isfinite(x)], y[np.isfinite(y)]
    if x.size == 0 or y.size == 0:
        return 1.0
    return float(stats.ks_2samp(_sample(x, rng), _sample(y, rng)).statistic)


def tv(a: pd.Series, b: pd.Series) -> float:
    """Total-variation distance between the label shares of two columns (missing is a label)."""
    p, q = label_shares(a), label_shares(b)
    idx = p.index.union(q.index)
    return float(0.5 * np.abs(p.reindex(idx, fill_value=0) - q.reindex(idx, fill_value=0)).sum())


def transition_counts(frame: pd.DataFrame, keys: list[str], time: str, states: list[str], periodic: bool) -> pd.Series:
    """Counts of consecutive state changes per entity, indexed by (from, to) labels."""
    code, names, ent = state_codes(frame, keys, time, states)
    if periodic:
        keep = np.r_[True, (code[1:] != code[:-1]) | (ent[1:] != ent[:-1])]
        code, ent = code[keep], ent[keep]
    same = ent[1:] == ent[:-1]
    n = len(names)
    counts = np.bincount(code[:-1][same] * n + code[1:][same], minlength=n * n)
    nz = np.flatnonzero(counts)
    index = pd.MultiIndex.from_arrays([names[nz // n], names[nz % n]], names=["a", "b"])
    return pd.Series(counts[nz], index=index, name="count").sort_values(ascending=False, kind="stable")


def transition_distance(orig: pd.Series, gen: pd.Series) -> float:
    """Visit-weighted mean TV distance between the rows of two empirical transition matrices."""
    total, dist = 0.0, 0.0
    for a in orig.index.get_level_values(0).unique():
        p = orig.xs(a, level=0)
        q = gen.xs(a, level=0) if a in gen.index.get_level_values(0) else pd.Series(dtype=float)
        p, q = p / p.sum(), (q / q.sum() if q.sum() else q)
        idx = p.index.union(q.index)
        w = float(orig.xs(a, level=0).sum())
        dist += w * 0.5 * float(np.abs(p.reindex(idx, fill_value=0) - q.reindex(idx, fill_value=0)).sum())
        total += w
    return dist / total if total else 0.0


def _cadence(frame: pd.DataFrame, keys: list[str], time: str, periodic: bool) -> float:
    """The grid cadence (periodic, jitter allowed) or the median gap between an entity's rows."""
    f, ent = ordered(frame, keys, time)
    t = seconds(f[time])
    gaps = np.diff(t)[ent[1:] == ent[:-1]]
    gaps = gaps[gaps > 0]
    if not gaps.size:
        return 0.0
    return grid(t, gaps)[0] if periodic else float(np.median(gaps))


def _entities(frame: pd.DataFrame, keys: list[str], time: str | None) -> int:
    """How many entities (distinct keys) the frame holds."""
    if time is None:
        return len(frame.groupby(keys))
    ent = ordered(frame, keys, time)[1]
    return int(ent[-1]) + 1 if ent.size else 0


def _first_rows(frame: pd.DataFrame, keys: list[str], time: str | None) -> pd.DataFrame:
    """One row per entity (its first; static attributes are compared one row per entity)."""
    if not keys:
        return frame
    if time is None:
        return frame.drop_duplicates(keys)
    f, ent = ordered(frame, keys, time)
    return f.iloc[np.flatnonzero(np.r_[True, ent[1:] != ent[:-1]])]


def _replicate(spec: Spec, seed: int, rows: int, done: dict | None) -> dict:
    """Tables regenerated at up to REPLICATE_SCALE times the fitted population (at most REPLICATE_ROWS
    rows per sampled table), once per report: per-group transition rows of a small sample are compared
    with a regenerated world large enough that its own sampling noise does not dominate the distance
    (at 500 sessions, two samples of the same machine differ by L1 ~0.05 per referrer by chance alone)."""
    if done is not None:
        return done
    scale = min(REPLICATE_SCALE, REPLICATE_ROWS / max(rows, 1))
    if scale < 2:
        return {}
    try:
        return regenerate(spec, seed + 1, scale)
    except (ValueError, KeyError):  # a spec that does not scale (listed ids): the same-size regeneration
        return {}


def entity_for_table(spec: Spec, table: str):
    """The entity type that writes ``table`` (its event/metric table or its static table)."""
    return next(e for e in spec.entities if table in e.table_names)


def fidelity_rows(spec: Spec, profiles: list[Profile], seed: int = 0, relations: list | None = None) -> list[FidelityRow]:
    """Compare every fitted column of every table (and the children per parent of each relation) with
    data regenerated from ``spec``."""

    gen = regenerate(spec, seed)
    clear()
    for p in profiles:  # the profile sorted the sample already
        if p.keys and p.emission and list(p.sorted_frame.columns) == list(p.table.frame.columns):
            seed_order(p.table.frame, p.keys, p.table.time.column, p.sorted_frame, p.entity_codes)
    try:
        return _fidelity_rows(spec, profiles, gen, seed, relations)
    finally:
        clear()


def _fidelity_rows(spec: Spec, profiles: list[Profile], gen: dict, seed: int, relations: list | None) -> list[FidelityRow]:
    from tools.infer.fidelity_shape import correlation_rows, group_rows, length_rows, measurement_rows
    from tools.infer.questions import question_rows
    from tools.infer.replicate import stacked_regeneration

    rows: list[FidelityRow] = []
    big: dict | None = None  # a larger regeneration for the per-group checks of small samples
    group_by: dict[str, list[str]] = {}
    state_col: dict[str, str] = {}
    stacks: dict[str, pd.DataFrame] = {}  # small periodic tables regenerated several times (tools.infer.replicate)
    by = {p.name: p for p in profiles}
    for r in relations or []:
        c, par = by[r.child], by[r.parent]
        ce, pe = entity_for_table(spec, r.child), entity_for_table(spec, r.parent)
        orig = children_per_parent(c.table.frame, c.keys, r.columns, par.table.frame, par.keys)
        new = children_per_parent(gen[r.child], [ce.id.column, *c.keys[1:]], r.columns,
                                  gen[pe.static_table_name or pe.table_name], [pe.id.column, *par.keys[1:]])
        floor = sampling_floor(orig.size, new.size)
        rows.append(FidelityRow(r.child, "+".join(r.columns), "KS children per parent",
                                ks(pd.Series(orig), pd.Series(new), seed), round(max(KS_MAX, floor), 3),
                                f"mean {orig.mean():.2f} vs {new.mean():.2f}, max {orig.max()} vs {new.max()}"))
    for p in profiles:
        g = gen.get(p.name)
        if g is None:
            continue
        f = p.table.frame
        e = entity_for_table(spec, p.name)
        stack = stacked_regeneration(spec, p.name, len(f), seed) if p.emission == "periodic" else None
        if stack is not None:  # the shape, per-group and question checks of a small periodic table use it
            stacks[p.name] = stack
        gkeys = [e.id.column, *p.keys[1:]] if p.keys else [e.id.column]
        okeys = p.keys
        want = p.series or p.entities  # several series under one id are fitted as separate entities
        n_gen = _entities(g, gkeys, p.table.time.column if p.emission else None)
        rows.append(FidelityRow(p.name, "(entities)", "count ratio", abs(n_gen / max(want, 1) - 1),
                                0.0, f"{want} vs {n_gen}"))
        if len(okeys) > 1:  # a composite key: how many distinct ids (routers) carry the entities (interfaces)
            n_o, n_g = f[okeys[0]].nunique(), g[gkeys[0]].nunique()
            rows.append(FidelityRow(p.name, okeys[0], "distinct ids ratio", abs(n_g / max(n_o, 1) - 1), 0.0,
                                    f"{n_o} vs {n_g} ids for {want} entities"))
        rows.append(FidelityRow(p.name, "(rows)", "row count ratio", abs(len(g) / max(len(f), 1) - 1), ROWS_REL,
                                f"{len(f)} vs {len(g)}"))
        if p.emission:
            time = p.table.time.column
            periodic = p.emission == "periodic"
            oc, gc = _cadence(f, okeys, time, periodic), _cadence(g, gkeys, time, periodic)
            rel = abs(gc - oc) / oc if oc else 0.0
            rows.append(FidelityRow(p.name, time, "cadence", rel, 0.0 if p.emission == "periodic" else CADENCE_REL,
                                    f"{format_duration(oc)} vs {format_duration(gc) if gc else 'none'}"))
        fe, ge = _first_rows(f, okeys, p.table.time.column if p.emission else None), \
            _first_rows(g, gkeys, p.table.time.column if p.emission else None)
        for c in p.columns.values():
            if c.name not in g.columns or c.role in ("key", "time", "skipped", "relation"):
                continue
            a, b = (fe[c.name], ge[c.name]) if c.role == "attribute" else (f[c.name], g[c.name])
            numeric = c.role == "measurement" or (c.role == "attribute" and c.kind == "numeric")
            floor = sampling_floor(int(a.notna().sum()), int(b.notna().sum()))
            if numeric and c.role == "measurement" and okeys and p.emission:
                (fo, eo), (go, eg) = ordered(f, okeys, time), ordered(g, gkeys, time)
                floor = sampling_floor(effective_rows(fo[c.name], eo), effective_rows(go[c.name], eg))
            if numeric:
                rows.append(FidelityRow(p.name, c.name, "KS", ks(a, b, seed), round(max(KS_MAX, floor), 3)))
            else:
                rows.append(FidelityRow(p.name, c.name, "TV", tv(a, b), round(max(TV_MAX, floor), 3)))
        fit = e.states if p.emission else None
        cols = [c.name for c in p.columns.values() if c.role == "state"]
        if fit is not None and cols and all(c in g.columns for c in cols) and len(g):
            periodic = p.emission == "periodic"
            d = transition_distance(transition_counts(f, okeys, p.table.time.column, cols, periodic),
                                    transition_counts(g, gkeys, p.table.time.column, cols, periodic))
            rows.append(FidelityRow(p.name, "+".join(cols), "transition distance", d, TRANSITION_MAX))
            group_by[p.name] = list(dict.fromkeys(c.attribute for o in fit.overrides for c in o.when))
            labels = [c.name for c in p.columns.values() if c.role == "attribute" and c.kind == "categorical"
                      and 2 <= c.distinct <= 10]  # every label written on the rows, overridden or not
            big = _replicate(spec, seed, len(f), big)
            gg = big.get(p.name, g) if big else stacks.get(p.name, g)
            rows += group_rows(p, f, gg, okeys, gkeys, cols, list(dict.fromkeys(group_by[p.name] + labels)))
            state_col[p.name] = cols[0]
        if p.emission:
            # a small periodic table: its shape checks against the fitted model, not one draw of it
            gm = stacks.get(p.name, g)
            rows += measurement_rows(p, f, gm, okeys, gkeys) + correlation_rows(p, f, gm, okeys, gkeys)
            if p.emission == "on_transition" or e.arrival is not None:
                rows += length_rows(p, f, g, okeys, gkeys)
    rows += question_rows(profiles, {**gen, **stacks}, group_by, state_col)  # small periodic tables: stacked
    return rows
