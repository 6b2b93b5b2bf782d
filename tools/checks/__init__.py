"""SQL data-quality and pattern checks over a bundle's data.duckdb, and report.md's data card.

``run_checks(out_dir)`` returns ``Check`` records (``{name, table, kind, passed, detail, sql,
incident}``); ``check_bundle(out_dir)`` also writes checks.json, figures/ and report.md. Pure
functions of the bundle: no LLM, no environment reads, no randomness.

Quality checks (per table, from spec.yaml; each is a DuckDB query counting offending rows)
    nulls                 ids, timestamps, emitted attributes, total state columns and flags are never
                          null; a measurement may be null only inside a null_burst window of its
                          entity and key (or of a key its formula reads).
    ranges                every measurement inside its spec bounds (plus half a rounding step).
    cadence               periodic tables: every row on the cadence grid from the spec start (within
                          the jitter) and consecutive rows of an entity exactly one step apart, unless
                          missing_rate > 0 or the gap spans a data_outage window or an epoch start.
    duplicate_keys        (id, timestamp) unique; static tables: id unique.
    timestamps_monotonic  timestamps never decrease within an entity in file order (DuckDB rowid).
    state_transitions     event tables: consecutive visible states (state column and derived columns)
                          form a transition with probability > 0 in the spec, its overrides, exemplars,
                          behavior_shift incidents or timeouts (a unit restarting at an epoch start may
                          re-enter its initial state); periodic tables: only known states.
    terminal_states       no row of an entity after a row in a terminal state.
    foreign_keys          every foreign-key value exists as an id of the parent entity type.

Pattern checks (per incident in incidents.json)
    The entity's own baseline is a regression fitted on its rows outside every incident window that
    touches it: intercept, a linear trend (kept only when significant, |t| >= 3 with an
    autocorrelation-adjusted standard error) and a cosine/sine pair per seasonal period of the spec;
    the residual scale sigma = 1.4826 x MAD of the baseline residuals, never below the key's
    resolution (1 for counts, 10^-decimals for rounded values). See series.py. Keys whose signature
    direction is ``derived`` (computed by formula from a hidden injected input) are checked two-sided
    and only when the incident injected no visible key; a key that is not a column is not checkable.

    detectable  per key, at least DETECT_FRACTION (90%) of the affected entities (an evenly spaced
                sample of at most 20) deviate inside the window, in the signature's direction:
                  up / down     robust z = (median window residual - median baseline residual) / sigma,
                                z >= 3 (up) or z <= -3 (down); slow_drift uses the window's last quarter;
                  variance, decoupled, seasonality
                                residual RMS in the window / sigma >= 2 (a std ratio around the entity's
                                own baseline model; for correlation_break the model also regresses the
                                key on the visible inputs of its formula, so losing the relation to
                                them shows as residual);
                  flat          all values in the window equal (>= 2 rows) while not constant outside;
                  null          share of nulls in the window >= 0.9;
                  missing       (data_outage) no rows in the window, rows outside it, rows_removed > 0;
                  behavior      rows leaving a shifted state (the states named by the shift): next-state
                                frequencies inside vs outside the window differ (chi-square p < 1e-3 and
                                total variation >= 0.1), or (event tables) the geometric-mean dwell
                                differs by >= 1.5x with Welch p < 1e-3; hidden states fall back to
                                the measurements with state effects: robust std ratio
                                1.4826 x median |residual| / sigma >= 2 (short natural
                                episodes do not move it);
                  flash_crowd on arriving entities: entities starting in the window vs the same clock
                                window on other days: z = (n - median) / max(sqrt(median), 1.4826 MAD, 1)
                                >= 3, and the surge entities start inside the window.
    localized   the same statistic on (a) windows of the same length tiled over the affected
                entities' other times and (b) up to 50 unaffected entities of the table in the
                window: at most FP_BOUND (5%) of each may show the deviation, floor(5% x n) in
                count (so none when fewer than 20 were tested). With a baseline world in the bundle,
                the incident's keys must also equal the baseline outside every incident window.
    cascade_order  for each cascade child: the first timestamp where the median directional z of
                its affected entities (max over keys) is >= 3 at two consecutive timestamps must be at
                or after root start + the child's lag, and not before the root's own onset.

Detectability bound: a level incident (spike, dip, level_shift, kpi_degradation hold, flash_crowd
keys, cascade effects) of at least DETECT_BOUND_SIGMA = 6 baseline standard deviations of the
entity's key is detected: the threshold is 3 sigma, which leaves 3 sigma for the noise of the
window median (the residual sigma is at most the entity's baseline std, since the model removes
seasonality and trend). A slow_drift needs twice that (its last quarter averages 7/8 of the final
amount, use 7 sigma), a variance_burst 6 sigma of extra noise over >= 8 rows. Well below the bound
(<= 0.5 sigma) nothing is flagged. Effects on strongly autocorrelated series or Poisson counts of a
few events need more, which is what the checks report.
"""

from tools.checks.model import Check
from tools.checks.report import check_bundle
from tools.checks.run import failed_patterns, run_checks, write_checks

__all__ = ["Check", "check_bundle", "failed_patterns", "run_checks", "write_checks"]
