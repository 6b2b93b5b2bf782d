"""The spec model: durations, timestamps, round-trips and path-precise validation messages."""

from pathlib import Path

import pytest

from tools.common.durations import parse_timestamp
from tools.spec import SpecError, dump_spec, format_duration, load_spec, parse_duration, parse_spec_text

SAMPLE = Path(__file__).with_name("sample_iot.yaml")


@pytest.mark.parametrize(("text", "seconds"), [
    ("15m", 900), ("6h", 21600), ("2d", 172800), ("1h30m", 5400), ("90s", 90), ("1w", 604800),
    ("250ms", 0.25), ("0s", 0), (30, 30),
])
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["15 minutes", "-5m", "m", "", "5", "1.5.2h", True])
def test_parse_duration_rejects(text):
    with pytest.raises(ValueError):
        parse_duration(text)


@pytest.mark.parametrize("seconds", [1, 59, 60, 900, 5400, 86400, 90061, 0.25])
def test_format_duration_round_trips(seconds):
    assert parse_duration(format_duration(seconds)) == seconds


def test_timestamps_need_a_zone_and_become_utc():
    assert parse_timestamp("2026-01-01T02:00:00+02:00").isoformat() == "2026-01-01T00:00:00+00:00"
    assert parse_timestamp("2026-01-01T00:00:00Z").utcoffset().total_seconds() == 0
    with pytest.raises(ValueError, match="no time zone"):
        parse_timestamp("2026-01-01T00:00:00")


def test_yaml_round_trip_gives_the_same_model():
    spec = load_spec(SAMPLE)
    again = parse_spec_text(dump_spec(spec))
    assert again == spec
    assert parse_spec_text(dump_spec(again)) == spec


def _bad(replace_from: str, replace_to: str) -> SpecError:
    text = SAMPLE.read_text().replace(replace_from, replace_to)
    assert text != SAMPLE.read_text()
    with pytest.raises(SpecError) as info:
        parse_spec_text(text, "bad.yaml")
    return info.value


def test_probability_error_names_the_yaml_path_line_and_sum():
    err = _bad("operational: {warning: 0.9, offline: 0.1}", "operational: {warning: 0.8, offline: 0.1}")
    assert ("entities[0].states.transitions.operational", "probabilities sum to 0.90, must sum to 1") in err.problems
    line = next(i for i, t in enumerate(SAMPLE.read_text().splitlines(), 1) if "operational: {warning: 0.9" in t)
    assert f"line {line}, entities[0].states.transitions.operational" in str(err)
    assert str(err).startswith("bad.yaml: invalid spec")


def test_unknown_field_is_named():
    err = _bad("column: device_state", "colum: device_state")
    assert any(p == "entities[0].states.colum" and "unknown field" in m for p, m in err.problems)


def test_unreachable_state_is_reported():
    err = _bad("offline: {operational: 1.0}", "offline: {operational: 1.0}\n        stuck: {operational: 1.0}").problems
    err2 = _bad("offline: {dwell: {kind: fixed, value: 1h}}",
                "offline: {dwell: {kind: fixed, value: 1h}}\n        limbo: {dwell: {kind: fixed, value: 1h}}")
    assert any("unknown state 'stuck'" in m for _, m in err)
    assert any("limbo" in m and "never be reached" in m for _, m in err2.problems)


def test_override_condition_must_name_an_attribute():
    err = _bad("attribute: firmware, equals: v2", "attribute: firmwar, equals: v2")
    assert any(p.endswith("overrides[0].when[0].attribute") and "firmwar" in m for p, m in err.problems)


def test_static_only_attributes_need_a_static_table():
    text = SAMPLE.read_text().replace("    static_table: sensors\n", "")
    text = text.replace("- name: zone\n", "- name: zone\n        emit: static\n")
    with pytest.raises(SpecError, match="static_table"):
        parse_spec_text(text)


def test_every_problem_is_reported_at_once():
    text = SAMPLE.read_text().replace("warning: 0.9", "warning: 0.5").replace("count: 5", "count: 0")
    with pytest.raises(SpecError) as info:
        parse_spec_text(text)
    assert any("count" in p for p, _ in info.value.problems)


def test_integer_bounds_without_an_integer_are_rejected():
    err = _bad("        decimals: 2", "        integer: true\n        bounds: [0.05, 0.95]")
    assert any("contain no value" in m for _, m in err.problems)


def test_duplicate_keys_are_rejected_with_their_line():
    with pytest.raises(SpecError, match=r"duplicate key 'count' \(first on line 6\)"):
        parse_spec_text("name: a\nentities:\n  - name: s\n    id: {column: sid}\n"
                        "    # two counts\n    count: 2\n    count: 3\n")


def test_on_and_off_are_strings_not_booleans():
    text = SAMPLE.read_text().replace("zone_A: 0.5, zone_B: 0.5", "on: 0.5, off: 0.5")
    spec = parse_spec_text(text)
    assert set(spec.entities[0].attributes[0].dist.values) == {"on", "off"}
    assert parse_spec_text(dump_spec(spec)) == spec


def test_a_non_string_key_error_terminates():
    text = SAMPLE.read_text().replace("zone_A: 0.5, zone_B: 0.5", "1: 0.5, 2: 0.5")
    spec_or_error = None
    try:
        spec_or_error = parse_spec_text(text)
    except SpecError as exc:
        spec_or_error = exc
    assert spec_or_error is not None
