"""The domain-plausibility check: every value of a measurement in the range a domain expert accepts and
whole where it must be (``plausible``, from the catalog). It passes on a plausible world and fails,
naming the column, when a value leaves the range or is not whole."""

from __future__ import annotations

from tools.checks import run_checks

from ._helpers import execute, make_bundle

MONITORS = """
name: monitors
seed: 4
horizon: 1d
entities:
  - name: monitor
    table: vitals
    id: {column: monitor_id, format: "MON_{i:02d}"}
    count: 6
    emission: {kind: periodic, cadence: 15m}
    measurements:
      - name: spo2
        unit: "%"
        base: 97
        noise: {kind: iid, sigma: 1}
        bounds: [50, 100]
        decimals: 0
        plausible: {low: 50, high: 100, integer: true, source: "catalog: spo2"}
      - name: heart_rate
        base: 72
        noise: {kind: poisson}
        plausible: {low: 20, high: 250, integer: true, source: "catalog: heart_rate"}
"""


def _plausibility(bundle):
    return [c for c in run_checks(bundle) if c.name == "plausibility"]


def test_plausible_world_passes_and_names_what_it_checked(tmp_path):
    out = make_bundle(tmp_path / "ok", MONITORS)
    (check,) = _plausibility(out)
    assert check.passed and check.kind == "quality"
    assert "spo2 in [50, 100] and whole (catalog: spo2)" in check.detail


def test_a_value_outside_the_range_or_not_whole_fails(tmp_path):
    out = make_bundle(tmp_path / "bad", MONITORS)
    execute(out, "UPDATE vitals SET spo2 = 155 WHERE rowid = 3", "UPDATE vitals SET spo2 = 97.5 WHERE rowid = 7")
    (check,) = _plausibility(out)
    assert not check.passed
    assert "2 values no domain expert would accept" in check.detail and "spo2=155" in check.detail


def test_bounds_wider_than_the_plausible_range_are_caught(tmp_path):
    # the generator's bounds say nothing about plausibility: a spec whose level and bounds allow
    # SpO2 above 100 (the bug the check exists for) fails it even though every value is "in bounds"
    spec = MONITORS.replace("base: 97", "base: 99").replace("bounds: [50, 100]", "bounds: [50, 160]").replace(
        "sigma: 1}", "sigma: 4}")
    out = make_bundle(tmp_path / "wide", spec)
    (check,) = _plausibility(out)
    assert not check.passed and "spo2=" in check.detail
