"""Property test (hypothesis): the detectability check passes above the documented bound and fails
well below it, whatever the window's position and length (a check that cannot fail is a defect)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tools.checks.model import DETECT_BOUND_SIGMA

from ._helpers import make_bundle, pattern_results

WORLD = """
name: prop
seed: {seed}
start: "2026-01-01T00:00:00Z"
horizon: 3d
entities:
  - name: meter
    table: meters
    id: {{column: meter_id, format: "M{{i}}"}}
    count: 4
    emission: {{kind: periodic, cadence: 15m}}
    measurements:
      - name: value
        base: 100
        seasonality: [{{period: 1d, amplitude: 1.5, peak: 12h}}]
        noise: {{kind: iid, sigma: 1.0}}
        decimals: 3
incidents:
  - kind: {kind}
    id: inc
    target: {{entity: meter, ids: [M1]}}
    window: {{start: "{start}m", duration: "{length}m"}}
    effects: {{value: "{magnitude:.3f}sigma"}}
"""

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
BELOW = 0.2  # "well below" the bound, in baseline standard deviations


def _results(kind: str, magnitude: float, start_q: int, length_q: int, seed: int):
    text = WORLD.format(kind=kind, seed=seed, start=start_q * 15, length=length_q * 15, magnitude=magnitude)
    with tempfile.TemporaryDirectory() as tmp:
        out = make_bundle(Path(tmp) / "out", text)
        return pattern_results(out, {"inc"})


@SETTINGS
@given(above=st.booleans(), size=st.floats(0.0, 1.0), negative=st.booleans(),
       start_q=st.integers(8, 240), length_q=st.integers(2, 48), seed=st.integers(0, 50))
def test_level_shift_detectable_iff_above_the_bound(above, size, negative, start_q, length_q, seed):
    """Windows of 30 min (2 readings) to 12 h anywhere in the first 2.5 days; magnitudes in
    [bound, 2 x bound] or [0, 0.2] baseline standard deviations, up or down."""
    magnitude = DETECT_BOUND_SIGMA * (1 + size) if above else BELOW * size
    res = _results("level_shift", -magnitude if negative else magnitude, start_q, length_q, seed)
    det = res[("inc", "detectable")]
    assert det.passed == above, det.detail
    if above:
        assert res[("inc", "localized")].passed, res[("inc", "localized")].detail


@SETTINGS
@given(above=st.booleans(), size=st.floats(0.0, 1.0), start_q=st.integers(8, 240), length_q=st.integers(8, 48),
       seed=st.integers(0, 50))
def test_variance_burst_detectable_iff_above_the_bound(above, size, start_q, length_q, seed):
    """Extra noise with a std of [bound, 2 x bound] or [0, 0.2] baseline std, over 2 h to 12 h."""
    magnitude = DETECT_BOUND_SIGMA * (1 + size) if above else BELOW * size
    res = _results("variance_burst", magnitude, start_q, length_q, seed)
    det = res[("inc", "detectable")]
    assert det.passed == above, det.detail
