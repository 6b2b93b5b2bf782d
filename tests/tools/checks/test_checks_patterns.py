"""Pattern checks: every kind is detectable and localized where it was injected, cascades show
root-then-children order, and each pattern check fails when the manifest and the data disagree."""

from __future__ import annotations

import json

import pytest

from tools.checks import run_checks
from tools.patterns.model import KINDS as ALL_KINDS

from ._helpers import (
    HIDDEN,
    KINDS,
    TELECOM,
    copy_bundle,
    edit_incidents,
    execute,
    make_bundle,
    pattern_results,
)


@pytest.fixture(scope="module")
def telecom(tmp_path_factory):
    return make_bundle(tmp_path_factory.mktemp("tel") / "out", TELECOM, with_baseline=True)


@pytest.fixture(scope="module")
def kinds(tmp_path_factory):
    return make_bundle(tmp_path_factory.mktemp("kinds") / "out", KINDS, with_baseline=True)


def _failed(checks):
    return [f"{c.incident or c.table} {c.name}: {c.detail}" for c in checks if not c.passed]


def test_telecom_cascade_flatline_and_outage_pass(telecom):
    checks = run_checks(telecom)
    assert not _failed(checks), _failed(checks)
    results = {(c.incident, c.name) for c in checks if c.kind == "pattern"}
    for inc in ("link_degradation", "link_degradation.1", "link_degradation.2", "stuck_cell", "core_gap"):
        assert (inc, "detectable") in results and (inc, "localized") in results
    assert ("link_degradation.1", "cascade_order") in results and ("link_degradation.2", "cascade_order") in results
    assert ("link_degradation", "cascade_order") not in results  # only children are ordered
    # with the baseline world in the bundle, localization also compares against it
    loc = next(c for c in checks if c.incident == "link_degradation.1" and c.name == "localized")
    assert "baseline world: 0 rows" in loc.detail
    # the baseline tables get the quality checks too
    assert any(c.table == "baseline.cell_site" for c in checks)


def test_every_kind_is_detected_and_localized(kinds):
    checks = run_checks(kinds)
    assert not _failed(checks), _failed(checks)
    manifest = json.loads((kinds / "incidents.json").read_text())["incidents"]
    assert {r["kind"] for r in manifest} == set(ALL_KINDS) - {"cascade"}
    got = {(c.incident, c.name) for c in checks if c.kind == "pattern"}
    for r in manifest:
        assert (r["id"], "detectable") in got and (r["id"], "localized") in got, r["id"]


def test_pattern_checks_work_without_the_baseline_world(tmp_path):
    out = make_bundle(tmp_path / "out", TELECOM)
    checks = run_checks(out)
    assert not _failed(checks), _failed(checks)
    assert not any("baseline world" in c.detail for c in checks)


def test_tiny_magnitude_is_not_detectable(tmp_path):
    text = TELECOM.replace('effects: {Packet_Loss_Percent: "+4", Latency_ms: "+300%", Jitter_ms: "+400%"}',
                           'effects: {Packet_Loss_Percent: 0.1sigma, Latency_ms: 0.1sigma, Jitter_ms: 0.1sigma}')
    out = make_bundle(tmp_path / "out", text)
    res = pattern_results(out)
    det = res[("link_degradation", "detectable")]
    assert not det.passed
    assert "0/1 affected entities deviate" in det.detail


def test_localized_fails_when_an_affected_entity_is_left_out_of_the_manifest(kinds, tmp_path):
    bundle = copy_bundle(kinds, tmp_path / "b")

    def drop_m03(incs):
        shift = next(r for r in incs if r["id"] == "shift")
        shift["entities"] = ["M02"]  # M03 really shifted too: an "unaffected" peer now deviates

    edit_incidents(bundle, drop_m03)
    res = pattern_results(bundle, {"shift"})
    assert res[("shift", "detectable")].passed
    loc = res[("shift", "localized")]
    assert not loc.passed and "1/14 unaffected" in loc.detail


def test_localized_fails_when_the_same_deviation_happens_elsewhere(kinds, tmp_path):
    bundle = copy_bundle(kinds, tmp_path / "b")
    # a second, unannounced step on the spiked meter two days later
    execute(bundle, "UPDATE meters SET load = load + 40 WHERE meter_id = 'M00' AND timestamp >= TIMESTAMPTZ "
                    "'2026-01-07T10:00:00Z' AND timestamp < TIMESTAMPTZ '2026-01-07T12:00:00Z'")
    res = pattern_results(bundle, {"spike"})
    assert res[("spike", "detectable")].passed
    assert not res[("spike", "localized")].passed


@pytest.mark.parametrize("incident", ["outage", "alarms", "crowd", "checkout_bug", "stuck", "nulls", "noisy",
                                      "decoupled", "season", "drift", "surge"])
def test_detectable_fails_when_the_manifest_window_is_wrong(incident, kinds, tmp_path):
    """Moving the announced window one day (the same clock hours) leaves nothing to detect there."""
    bundle = copy_bundle(kinds, tmp_path / "b")

    def move(incs):
        from datetime import datetime, timedelta

        r = next(r for r in incs if r["id"] == incident)
        shift = timedelta(days=-1 if r["start"] >= "2026-01-07" else 1)
        for k in ("start", "end"):
            r[k] = (datetime.fromisoformat(r[k]) + shift).isoformat()
        r["rows_removed"] = r.get("rows_removed", None)

    edit_incidents(bundle, move)
    res = pattern_results(bundle, {incident})
    assert not res[(incident, "detectable")].passed, res[(incident, "detectable")].detail


def test_cascade_order_fails_when_the_child_starts_before_root_plus_lag(telecom, tmp_path):
    bundle = copy_bundle(telecom, tmp_path / "b")

    def later(incs):
        child = next(r for r in incs if r["id"] == "link_degradation.1")
        child["lag_seconds"] = 7200.0  # the manifest claims 2 hours, the data shows 15 minutes

    edit_incidents(bundle, later)
    res = pattern_results(bundle)
    order = res[("link_degradation.1", "cascade_order")]
    assert not order.passed and "before root start + lag" in order.detail
    assert res[("link_degradation.2", "cascade_order")].passed


def test_checks_are_deterministic(telecom):
    a = [c.model_dump() for c in run_checks(telecom)]
    b = [c.model_dump() for c in run_checks(telecom)]
    assert a == b


def test_derived_keys_are_checked_only_when_nothing_else_was_injected():
    from tools.checks.patterns import checked_keys

    rec = {"keys": ["fail", "succ"], "kind": "kpi_degradation",
           "signature": {"fail": {"direction": "up"}, "succ": {"direction": "derived"}}}
    assert checked_keys(rec, {"fail", "succ"}) == (["fail"], ["succ"])
    only = {"keys": ["succ"], "kind": "kpi_degradation", "signature": {"succ": {"direction": "derived"}}}
    assert checked_keys(only, {"succ"}) == (["succ"], [])


def test_a_derived_only_record_is_checked_two_sided(kinds, tmp_path):
    bundle = copy_bundle(kinds, tmp_path / "b")

    def derived(incs):  # as if the dip had been injected into a hidden input of `load`
        dip = next(r for r in incs if r["id"] == "dip")
        dip["signature"]["load"]["direction"] = "derived"

    edit_incidents(bundle, derived)
    det = pattern_results(bundle, {"dip"})[("dip", "detectable")]
    assert det.passed and "|z| >= 3" in det.detail


def test_behavior_shift_with_hidden_states_shows_through_measurements(tmp_path):
    out = make_bundle(tmp_path / "out", HIDDEN)
    res = pattern_results(out)
    det, loc = res[("flappy", "detectable")], res[("flappy", "localized")]
    assert det.passed and "hidden states, seen through loss" in det.detail, det.detail
    assert loc.passed, loc.detail
