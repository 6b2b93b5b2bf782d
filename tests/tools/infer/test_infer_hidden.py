"""A hidden incident regime (a state machine that is never written as a column) moving two measurements
together is found in the measurements: the inferred spec has a hidden normal <-> incident machine with
about the known incident length and shifts, and the regenerated data keep the lag-1 autocorrelation and
the correlation the regime creates."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import pytest

from tools.common.dwell import dwell_mean_seconds
from tools.generate import generate_bundle
from tools.infer import infer
from tools.infer.fidelity import entity_for_table
from tools.spec import parse_spec_text

WORLD = textwrap.dedent("""
    name: incidents
    seed: 3
    start: "2026-01-05T00:00:00Z"
    horizon: 4d
    entities:
      - name: link
        table: link_metrics
        id: {column: link_id, format: "L{i:02d}"}
        count: 40
        emission: {kind: periodic, cadence: 15m, timestamp_column: ts}
        states:
          initial: normal
          states:
            normal: {dwell: {kind: exponential, mean: 1d}}
            incident: {dwell: {kind: exponential, mean: 3h}}
          transitions: {normal: {incident: 1.0}, incident: {normal: 1.0}}
        measurements:
          - {name: loss_pct, base: 0.5, noise: {kind: iid, sigma: 0.1}, states: {incident: {shift: 2.0}}, decimals: 3}
          - {name: jitter_ms, base: 3, noise: {kind: iid, sigma: 0.3}, states: {incident: {shift: 4.0}}, decimals: 3}
          - {name: util, base: 40, noise: {kind: iid, sigma: 5}, decimals: 2}
""")


@pytest.fixture(scope="module")
def incidents(tmp_path_factory):
    out = tmp_path_factory.mktemp("incidents") / "bundle"
    generate_bundle(parse_spec_text(WORLD), out)
    path = out / "data" / "link_metrics.parquet"
    frame = pd.read_parquet(path)
    assert "state" not in frame.columns and len(frame.columns) == 5  # the regime is not in the data
    return infer([path], seed=4)


def test_hidden_regime_is_fitted_with_its_length_and_shifts(incidents):
    result, _ = incidents
    e = entity_for_table(result.spec, "link_metrics")
    assert e.states is not None and e.states.column is None and set(e.states.states) == {"normal", "incident"}
    assert dwell_mean_seconds(e.states.states["incident"].dwell) / 3600 == pytest.approx(3, rel=0.3)
    ms = {m.name: m for m in e.measurements}
    assert ms["loss_pct"].states["incident"].shift == pytest.approx(2.0, rel=0.15)
    assert ms["jitter_ms"].states["incident"].shift == pytest.approx(4.0, rel=0.15)
    assert abs(ms["util"].states["incident"].shift) < 1  # a measurement the regime does not move


def test_regime_keeps_lag1_and_correlation(incidents):
    result, _ = incidents
    rows = {(r.column, r.metric.split(" ")[0]): r for r in result.fidelity}
    for m in ("loss_pct", "jitter_ms"):
        lag = rows[(m, "lag-1")]
        assert lag.ok and float(lag.detail.split()[0]) > 0.5, lag.detail  # sustained: strongly autocorrelated
    pair = rows[("loss_pct~jitter_ms", "correlation")]
    assert pair.ok and float(pair.detail.split()[0]) > 0.5, pair.detail
    assert not [(r.column, r.metric, r.value) for r in result.fidelity if not r.ok]
    assert np.isfinite([r.value for r in result.fidelity]).all()
