"""A hidden regime found in the measurements of a periodic table without a state column: sustained
excursions (an incident: availability lost for hours, packet loss and jitter up together) are a state of
the entity, not noise of each measurement. Rows more than 4 robust sigmas from their entity's median in a
measurement whose far rows come in runs (not isolated spikes) are the ``incident`` state; the machine
(``normal`` <-> ``incident``, dwell per state) is fitted from those runs and never written as a column,
and every measurement then gets its own shift and noise scale in that state, so the excursions keep their
timing (lag-1 autocorrelation), move the measurements together (their correlation) and spread entities
as the sample does."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tools.common.dwell import Exponential, Gamma, dwell_mean_seconds
from tools.infer.fit_dist import censored_exponential
from tools.infer.fit_noise import (
    ISOLATED_MIN,
    MIN_EPISODES,
    SPIKE_MIN_SHARE,
    far_rows,
    group_median,
    isolated_share,
)
from tools.infer.fit_states import StateFit, machine_from_codes, normalised
from tools.infer.profile import Profile, seconds

EXTEND_K = 2.5    # robust sigmas: an excursion lasts while its rows stay this far
MIN_RUN = 3       # rows: shorter excursions are spikes
MAX_SHARE = 0.2   # a "regime" covering more of the rows than this is not an incident
NAMES = ["normal", "incident"]


def _far_per_entity(x: np.ndarray, ent: np.ndarray, k: float = 4.0) -> tuple[np.ndarray, np.ndarray]:
    """Rows more than ``k`` robust sigmas from their entity's median (missing values are never far), and
    whether each row is above that median."""
    ok = np.isfinite(x)
    med = group_median(x[ok], ent[ok])
    per = np.zeros(int(ent.max(initial=0)) + 1)
    per[med.index.to_numpy()] = med.to_numpy()
    far = np.zeros(x.size, bool)
    far[ok] = far_rows(x[ok] - per[ent[ok]], k)
    return far, ok & (x > per[ent])


def _excursions(x: np.ndarray, ent: np.ndarray, same_prev: np.ndarray) -> np.ndarray:
    """The rows of a measurement's sustained excursions: runs of at least MIN_RUN rows on one side of the
    entity's median, beyond EXTEND_K sigmas and beyond 4 somewhere. Far rows of different measurements,
    or on opposite sides, that merely fall close together are coinciding spikes, not an incident (the clean
    link table has such pairs: one far-up packet loss row beside a far-down jitter row)."""
    core, up = _far_per_entity(x, ent)
    wide, _ = _far_per_entity(x, ent, EXTEND_K)
    out = np.zeros(x.size, bool)
    for side in (up, ~up):
        out |= _long_runs(_hysteresis(core & side, wide & side, same_prev), same_prev)
    return out


def _runs(flag: np.ndarray, same_prev: np.ndarray) -> np.ndarray:
    """A run number per row (rows of one run: consecutive flagged rows of one entity)."""
    return np.cumsum(flag & ~(np.r_[False, flag[:-1]] & same_prev))


def _hysteresis(core: np.ndarray, wide: np.ndarray, same_prev: np.ndarray) -> np.ndarray:
    """The runs of ``wide`` rows (beyond EXTEND_K sigmas) that hold at least one ``core`` row (beyond 4):
    an incident hovering near the threshold is one excursion, not many."""
    wide = wide | core
    run = _runs(wide, same_prev)
    hit = np.bincount(run[core], minlength=int(run.max(initial=0)) + 1) > 0
    return wide & hit[run]


def _long_runs(flag: np.ndarray, same_prev: np.ndarray) -> np.ndarray:
    """Only the runs of at least MIN_RUN flagged rows of one entity."""
    run = _runs(flag, same_prev)
    length = np.bincount(run[flag], minlength=int(run.max(initial=0)) + 1)
    return flag & (length[run] >= MIN_RUN)


def hidden_regime(prof: Profile, sf: pd.DataFrame, seed: int = 0) -> StateFit | None:
    """The hidden incident machine of a periodic table without states, or None when its measurements show
    no sustained excursions (isolated spikes stay spikes)."""
    if prof.emission != "periodic" or not prof.keys or not len(sf):
        return None
    ent = prof.entity_codes
    same_prev = np.r_[False, ent[1:] == ent[:-1]]
    flag = np.zeros(len(sf), bool)
    used = []
    for c in [c.name for c in prof.columns.values() if c.role == "measurement"]:
        x = sf[c].to_numpy(dtype=float)
        core, _ = _far_per_entity(x, ent)
        far = _hysteresis(core, _far_per_entity(x, ent, EXTEND_K)[0], same_prev)
        share = float(far.mean())
        if not SPIKE_MIN_SHARE <= share <= MAX_SHARE:
            continue
        runs = int((far & ~(np.r_[False, far[:-1]] & same_prev)).sum())
        if runs >= MIN_EPISODES and isolated_share(far, ent) < ISOLATED_MIN:
            flag |= _excursions(x, ent, same_prev)
            used.append(c)
    if not used:
        return None
    same_next = np.r_[ent[1:] == ent[:-1], False]
    gap = ~flag & np.r_[False, flag[:-1]] & same_prev & np.r_[flag[1:], False] & same_next
    flag |= gap  # one row back inside the excursion does not end the incident
    flag = _long_runs(flag, same_prev)  # a lone far row or two is a spike, not an incident
    if not flag.any():
        return None
    if flag.mean() > MAX_SHARE:
        return None
    fit = machine_from_codes(prof, flag.astype(np.int64), seconds(sf[prof.table.time.column]), ent, NAMES,
                             None, {}, seed)
    # the normal stays between incidents are biased short (cells without incidents finish none): the
    # normal dwell is exponential from all the time spent normal over the incidents that began
    normal_rows = float((~flag).sum()) * float(prof.cadence or 0.0)
    starts = int((flag & ~(np.r_[False, flag[:-1]] & same_prev)).sum())
    states = dict(fit.machine.states)
    states["normal"] = states["normal"].model_copy(update={"dwell": censored_exponential(normal_rows, starts)})
    inc = states["incident"].dwell
    low = MIN_RUN * float(prof.cadence or 0.0)
    if isinstance(inc, Exponential) and dwell_mean_seconds(inc) > 1.5 * low > 0:
        # too few incidents for a fitted family: an incident is at least MIN_RUN rows (shorter excursions
        # are spikes), so its length is that minimum plus an exponential excess (the truncated exponential's
        # MLE), written as the gamma with its mean and variance (shape (mean / excess)^2)
        mean = dwell_mean_seconds(inc)
        shape = round((mean / (mean - low)) ** 2, 3)
        states["incident"] = states["incident"].model_copy(update={"dwell": Gamma(kind="gamma", mean=inc.mean, shape=shape)})
    # the sample is a window on a running process, not its beginning: entities start in the regime's
    # stationary shares (starting every entity normal would leave the regenerated incident rows short by
    # about an incident per 1 / share entities)
    means = {k: dwell_mean_seconds(states[k].dwell) for k in NAMES}
    initial = normalised(means)
    fit.machine = fit.machine.model_copy(update={"states": states, "initial": initial})
    fit.hidden = True
    runs = int((flag & ~(np.r_[False, flag[:-1]] & same_prev)).sum())
    fit.notes.append(f"hidden incident state (not a column): {runs} sustained excursions of {', '.join(used)} "
                     f"({flag.mean():.1%} of the rows) fitted as a normal <-> incident regime")
    return fit
