"""Fidelity beyond marginals, all vectorised: tails (share beyond 4 robust sigmas), lag-1
autocorrelation within entities, the spread of entity means, per-group transition distance and dwell
(for every label attribute the machine's overrides use), and rows and duration per entity."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import f as f_dist

from tools.infer.fidelity import FidelityRow, ks, sampling_floor
from tools.infer.fit_noise import far_rows, group_median
from tools.infer.profile import Profile, seconds
from tools.infer.rowcodes import label_codes, ordered, state_codes

TAIL_REL = 0.30      # tail share within 30% (0.15 percentage point when the share is under 0.5%)
TAIL_ABS = 0.005
ACF_ABS = 0.05       # lag-1 autocorrelation within 0.05
SPREAD_LOG = 0.405   # standard deviation of entity means within a factor 1.5 (more with few entities)
GROUP_L1 = 0.05      # per-group transition rows: visit-weighted L1 distance
DWELL_REL = 0.15     # per-group mean dwell per state within 15%
LENGTH_KS = 0.10     # rows per entity and entity duration (sessions): KS
MIN_RUNS = 30
CORR_MIN = 0.3       # pairs of measurements whose correlation is compared
CORR_ABS = 0.10


def _order(frame: pd.DataFrame, keys: list[str], time: str) -> tuple[pd.DataFrame, np.ndarray]:
    return ordered(frame, keys, time)


def _lag1_parts(values: np.ndarray, ent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per entity: the sum of lag-1 products and of squares of its values less its mean."""
    ok = np.isfinite(values)
    x, e = values[ok], ent[ok]
    n = int(ent.max(initial=0)) + 1
    if x.size < 3:
        return np.zeros(n), np.zeros(n)
    means = np.bincount(e, weights=x, minlength=n) / np.maximum(np.bincount(e, minlength=n), 1)
    d = x - means[e]
    same = e[1:] == e[:-1]
    num = np.bincount(e[1:][same], weights=d[1:][same] * d[:-1][same], minlength=n)
    return num, np.bincount(e, weights=d * d, minlength=n)


def lag1(values: np.ndarray, ent: np.ndarray) -> float:
    """Pooled lag-1 autocorrelation of the values within entities (each entity's mean removed)."""
    num, den = _lag1_parts(values, ent)
    return float(num.sum() / den.sum()) if den.sum() > 0 else 0.0


def lag1_se(values: np.ndarray, ent: np.ndarray, seed: int = 0, draws: int = 200) -> float:
    """Standard error of the pooled lag-1 by resampling entities (a few entities with long excursions
    make it uncertain: the data cannot tell it more precisely than this)."""
    return _se(*_lag1_parts(values, ent), seed, draws)


def _se(num: np.ndarray, den: np.ndarray, seed: int = 0, draws: int = 200) -> float:
    keep = den > 0
    num, den = num[keep], den[keep]
    if num.size < 2:
        return 0.0
    w = np.random.default_rng(seed).multinomial(num.size, np.full(num.size, 1 / num.size), size=draws)
    return float(np.std((w @ num) / np.maximum(w @ den, 1e-300)))


def within_tail_share(values: np.ndarray, ent: np.ndarray, runs: bool = False):
    """Share of the values more than 4 robust sigmas from their own entity's median (levels that differ
    between entities or groups are not tails); with ``runs``, also how many separate excursions (runs of
    consecutive far rows of an entity) they form."""
    ok = np.isfinite(values)
    x, e = values[ok], ent[ok]
    if x.size == 0:
        return (0.0, 0) if runs else 0.0
    med = group_median(x, e)
    per = np.zeros(int(e.max()) + 1)
    per[med.index.to_numpy()] = med.to_numpy()
    d = x - per[e]
    far = far_rows(d)
    share = float(np.mean(far))
    if not runs:
        return share
    starts = far & ~(np.r_[False, far[:-1]] & np.r_[False, e[1:] == e[:-1]])
    return share, int(starts.sum())


def entity_spread(values: np.ndarray, ent: np.ndarray) -> float:
    """Standard deviation of the entity means."""
    ok = np.isfinite(values)
    n = np.bincount(ent[ok])
    means = np.bincount(ent[ok], weights=values[ok])[n > 0] / n[n > 0]
    return float(np.std(means)) if means.size > 1 else 0.0


def _copies(eo: np.ndarray, eg: np.ndarray) -> str:
    """How many regenerations the regenerated side stacks (tools.infer.replicate), when more than one."""
    k = round((int(eg.max(initial=0)) + 1) / max(int(eo.max(initial=0)) + 1, 1))
    return f"; regenerated x{k}" if k > 1 else ""


def _rel(a: float, b: float) -> float:
    return abs(b - a) / abs(a) if a else (0.0 if b == 0 else 1.0)


def measurement_rows(p: Profile, f: pd.DataFrame, g: pd.DataFrame, okeys: list[str], gkeys: list[str]) -> list[FidelityRow]:
    """Tail share, lag-1 autocorrelation (periodic tables) and entity-mean spread per measurement."""
    time = p.table.time.column
    fo, eo = _order(f, okeys, time)
    fg, eg = _order(g, gkeys, time)
    out = []
    for c in [c for c in p.columns.values() if c.role == "measurement" and c.name in g.columns]:
        a = pd.to_numeric(fo[c.name], errors="coerce").to_numpy(dtype=float)
        b = pd.to_numeric(fg[c.name], errors="coerce").to_numpy(dtype=float)
        (ta, runs), (tb, _) = within_tail_share(a, eo, runs=True), within_tail_share(b, eg, runs=True)
        value = _rel(ta, tb) if ta >= TAIL_ABS else abs(tb - ta) / TAIL_ABS * TAIL_REL  # shares under 0.5%: within 0.15 percentage point
        # the far rows come in `runs` separate excursions: their count is Poisson, relative sd 1/sqrt(runs)
        floor = 2.58 / np.sqrt(runs) if runs else 0.0
        out.append(FidelityRow(p.name, c.name, "tail share beyond 4 sigma (rel.)", value,
                               round(float(max(TAIL_REL, floor)), 3), f"{ta:.3%} vs {tb:.3%} ({runs} excursions)"))
        if p.emission == "periodic":
            (na, da), (nb, db) = _lag1_parts(a, eo), _lag1_parts(b, eg)
            la, lb = float(na.sum() / da.sum()) if da.sum() > 0 else 0.0, float(nb.sum() / db.sum()) if db.sum() > 0 else 0.0
            # the threshold stays 0.05; the standard error of the sample's own lag-1 (entity bootstrap) is
            # shown: a few entities with long excursions make it larger than the threshold
            out.append(FidelityRow(p.name, c.name, "lag-1 autocorrelation (abs. diff)", abs(lb - la), ACF_ABS,
                                   f"{la:.3f} vs {lb:.3f} (sample se {_se(na, da):.3f}{_copies(eo, eg)})"))
        sa, sb = entity_spread(a, eo), entity_spread(b, eg)
        n = int(eo.max(initial=0)) + 1
        if n >= 3 and sa > 0:
            # |log ratio| of the two standard deviations; with few entities the floor is the two-sided 1%
            # F-test bound on a ratio of two sds over n entities (the data cannot say more)
            floor = max(SPREAD_LOG, 0.5 * float(np.log(f_dist.ppf(0.995, n - 1, n - 1))))
            out.append(FidelityRow(p.name, c.name, "sd of entity means (|log ratio|)",
                                   abs(float(np.log(max(sb, 1e-12) / sa))), round(float(floor), 3),
                                   f"{sa:.4g} vs {sb:.4g} over {n} entities"))
    return out


def correlation_rows(p: Profile, f: pd.DataFrame, g: pd.DataFrame, okeys: list[str], gkeys: list[str]) -> list[FidelityRow]:
    """Correlation of each pair of measurements (each entity's mean removed, rows where both are set) where
    the sample or the regenerated data shows one (|r| >= 0.3): within 0.1."""
    time = p.table.time.column
    names = [c.name for c in p.columns.values() if c.role == "measurement" and c.name in g.columns]
    if len(names) < 2:
        return []
    mats = []
    for frame, keys in ((f, okeys), (g, gkeys)):
        fo, e = ordered(frame, keys, time)
        x = fo[names].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
        both = np.isfinite(x).all(axis=1)
        x, e = x[both], e[both]
        if len(x):  # each entity's mean (over the rows where every measurement is set) removed
            n = np.maximum(np.bincount(e), 1)
            x = x - np.column_stack([np.bincount(e, weights=col) / n for col in x.T])[e]
        with np.errstate(invalid="ignore", divide="ignore"):
            mats.append(np.nan_to_num(np.corrcoef(x, rowvar=False)) if len(x) > 2 else np.zeros((len(names),) * 2))
    out = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            a, b = float(mats[0][i, j]), float(mats[1][i, j])
            if max(abs(a), abs(b)) >= CORR_MIN:
                out.append(FidelityRow(p.name, f"{names[i]}~{names[j]}", "correlation (abs. diff)", abs(b - a), CORR_ABS,
                                       f"{a:.3f} vs {b:.3f}"))
    return out


def _runs(frame: pd.DataFrame, keys: list[str], time: str, states: list[str], periodic: bool):
    """Per state entry that was left: (entity row index of its first row, state label, next label, seconds)."""
    code, names, ent = state_codes(frame, keys, time, states)
    f, _ = ordered(frame, keys, time)
    t = seconds(f[time]).astype(float)
    entry = np.r_[True, (code[1:] != code[:-1]) | (ent[1:] != ent[:-1])] if periodic else np.ones(code.size, bool)
    idx = np.flatnonzero(entry)
    c, e, tt = code[idx], ent[idx], t[idx]
    same = e[1:] == e[:-1]
    return idx[:-1][same], names[c[:-1][same]], names[c[1:][same]], (tt[1:] - tt[:-1])[same], f


def group_rows(p: Profile, f: pd.DataFrame, g: pd.DataFrame, okeys: list[str], gkeys: list[str],
               states: list[str], groups: list[str]) -> list[FidelityRow]:
    """Per label of each group attribute: visit-weighted L1 distance of the transition rows and the
    largest relative error of a state's mean dwell (states with at least 30 runs in the sample)."""
    time = p.table.time.column
    periodic = p.emission == "periodic"
    ro, rg = _runs(f, okeys, time, states, periodic), _runs(g, gkeys, time, states, periodic)
    out = []
    for attr in groups:
        if attr not in f.columns or attr not in g.columns:
            continue
        (co, uo), (cg, ug) = label_codes(ro[4], attr), label_codes(rg[4], attr)
        lo, lg = uo[co[ro[0]]], ug[cg[rg[0]]]
        for label in pd.unique(lo):
            mo, mg = lo == label, lg == label
            if mo.sum() < MIN_RUNS or not mg.any():
                continue
            po = pd.crosstab(ro[1][mo], ro[2][mo])
            pg = pd.crosstab(rg[1][mg], rg[2][mg]).reindex(index=po.index, columns=po.columns.union(
                pd.crosstab(rg[1][mg], rg[2][mg]).columns), fill_value=0)
            po = po.reindex(columns=pg.columns, fill_value=0)
            w = po.sum(axis=1).to_numpy(dtype=float)
            a = po.to_numpy(float) / np.maximum(w[:, None], 1)
            b = pg.to_numpy(float) / np.maximum(pg.sum(axis=1).to_numpy(float)[:, None], 1)
            l1 = float(np.sum(w * np.abs(a - b).sum(axis=1)) / max(w.sum(), 1))
            # sampling floor: twice the L1 distance two samples of these sizes show by chance
            ng = pg.sum(axis=1).to_numpy(float)
            chance = np.sqrt(2 / np.pi) * np.sqrt(a * (1 - a) * (1 / np.maximum(w, 1) + 1 / np.maximum(ng, 1))[:, None]).sum(axis=1)
            floor = 2 * float(np.sum(w * chance) / max(w.sum(), 1))
            out.append(FidelityRow(p.name, f"{attr}={label}", "group transition L1", l1,
                                   round(max(GROUP_L1, floor), 3),
                                   f"{int(w.sum())} exits in the sample, {int(ng.sum())} regenerated"))
            do = pd.Series(ro[3][mo]).groupby(ro[1][mo]).agg(["mean", "std", "size"])
            dg = pd.Series(rg[3][mg]).groupby(rg[1][mg]).agg(["mean", "std", "size"])
            do = do[do["size"] >= MIN_RUNS]
            if len(do):
                dg = dg.reindex(do.index)
                err = (dg["mean"] / do["mean"] - 1).abs().fillna(1.0)
                # per state: 99% bound of the relative difference of two means of these sizes, at least 15%
                se = np.sqrt((do["std"] / do["mean"]) ** 2 / do["size"] + (dg["std"] / dg["mean"]) ** 2 /
                             dg["size"].fillna(1).clip(lower=1)).fillna(0)
                thr = np.maximum(DWELL_REL, 2.58 * se)
                worst = str((err / thr).idxmax())
                out.append(FidelityRow(p.name, f"{attr}={label}", "group mean dwell (rel.)", float(err[worst]),
                                       round(float(thr[worst]), 3), f"{worst}: {do['mean'][worst] / 60:.1f} vs "
                                       f"{dg['mean'].get(worst, np.nan) / 60:.1f} min"))
    return out


def length_rows(p: Profile, f: pd.DataFrame, g: pd.DataFrame, okeys: list[str], gkeys: list[str]) -> list[FidelityRow]:
    """Rows per entity and first-to-last duration per entity (KS), for event tables (sessions)."""
    time = p.table.time.column
    out = []
    for name, fn in (("rows per entity", "size"), ("duration per entity (s)", "span")):
        vals = []
        for frame, keys in ((f, okeys), (g, gkeys)):
            grp = pd.Series(seconds(frame[time]).astype(float)).groupby(
                [frame[k].astype("string").to_numpy() for k in keys])
            vals.append(grp.size() if fn == "size" else grp.max() - grp.min())
        floor = sampling_floor(len(vals[0]), len(vals[1]))
        out.append(FidelityRow(p.name, "(entities)", f"KS {name}", ks(vals[0], vals[1]), round(max(LENGTH_KS, floor), 3),
                               f"max {vals[0].max():.0f} vs {vals[1].max():.0f}"))
    return out
