"""The offline reader and composer: names, counts, cadences, horizons and states come from the text;
what the text leaves open gets a logged default; every composed spec is valid."""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from tests.tools.describe.cases import CASES
from tools.describe.adjust import adjust_incident, scale_magnitude
from tools.describe.compose_world import compose_world
from tools.describe.edit import apply_edit
from tools.describe.errors import DescriptionError
from tools.describe.extract import find_cadence, find_horizon, singular
from tools.describe.profiles import measurement_profile, state_class
from tools.describe.understand import understand
from tools.spec.io import dump_spec, parse_spec_text

CATALOG = load_catalog()


def extract_draft(text: str):
    return understand(text, CATALOG)


def compose_spec(draft):
    spec, decisions, _notes = compose_world(draft, CATALOG)
    return spec, decisions


@pytest.mark.parametrize(("text", "entity", "count", "cadence", "horizon", "measurements", "states"), CASES,
                         ids=[c[1] for c in CASES])
def test_reader_takes_names_and_numbers_from_the_text(text, entity, count, cadence, horizon, measurements, states):
    d = extract_draft(text)
    assert d.entity.name == entity
    assert d.entity.count == count
    assert d.entity.cadence == cadence
    assert d.horizon == horizon
    assert [m.name for m in d.entity.measurements] == measurements
    assert d.entity.states == states


@pytest.mark.parametrize(("text", "entity", "count", "cadence", "horizon", "measurements", "states"), CASES,
                         ids=[c[1] for c in CASES])
def test_composed_spec_is_valid_and_keeps_what_the_text_said(text, entity, count, cadence, horizon, measurements,
                                                             states):
    spec, decisions = compose_spec(extract_draft(text))
    spec = parse_spec_text(dump_spec(spec), "composed.yaml")  # round-trips through YAML
    e = spec.entities[0]
    assert e.name == entity
    assert [m.name for m in e.measurements] == measurements
    if count:
        assert e.count == count
    else:
        assert any(d.startswith("count ") for d in decisions)
    if cadence:
        assert e.emission.cadence == cadence
    if horizon:
        assert spec.horizon == horizon
    else:
        assert spec.horizon == "7d" and any(d.startswith("horizon 7d") for d in decisions)
    if states:
        assert list(e.states.states) == states
    assert len(spec.incidents) >= 2  # a degradation and an outage at least


def test_incident_words_choose_the_key():
    spec, _ = compose_spec(extract_draft(CASES[10][0]))
    drift = [i for i in spec.incidents if i.kind == "slow_drift"]
    assert len(drift) == 1 and list(drift[0].effects) == ["pressure"]


def test_edit_replaces_only_what_it_states():
    d = extract_draft(CASES[0][0])
    new, changes = apply_edit(d, "make it 80 turbines every 5 minutes over 3 days")
    assert (new.entity.count, new.entity.cadence, new.horizon) == (80, "5m", "3d")
    assert new.entity.states == d.entity.states and new.entity.measurements == d.entity.measurements
    assert changes == ["count → 80", "cadence → 5m", "horizon → 3d"]
    same, none = apply_edit(d, "looks fine to me")
    assert same == d and none == []


def test_state_roles_and_measurement_profiles():
    assert [state_class(s, i) for i, s in enumerate(["normal", "curtailed", "fault", "maintenance", "idle"])] == \
        ["active", "reduced", "down", "service", "idle"]
    assert state_class("in_service", 0) == "active" and state_class("out_of_cash", 1) == "down"
    assert measurement_profile("p95_latency").unit == "ms"
    assert measurement_profile("error_rate").bounds == (0.0, 100.0)
    assert measurement_profile("oom_kills").integer
    assert measurement_profile("power_output").kind == "output"


def test_units_and_plurals():
    assert find_cadence("every 10 minutes")[0] == "10m" and find_cadence("hourly")[0] == "1h"
    assert find_cadence("every minute")[0] == "1m" and find_cadence("nothing here")[0] is None
    assert find_horizon("over two weeks")[0] == "14d" and find_horizon("for 30 days")[0] == "30d"
    assert singular("batteries") == "battery" and singular("turbines") == "turbine"


def test_adjust_strengthens_or_moves():
    assert scale_magnitude("8sigma", 1.5) == "12sigma" and scale_magnitude("+400%", 1.5) == "+600%"
    assert scale_magnitude("-70%", 1.5) == "-95%" and scale_magnitude(10.0, 1.5) == 15.0
    spec = {"incidents": [{"id": "a", "effects": {"x": "8sigma"}, "window": {"start": "day 2 10:00"}},
                          {"id": "b", "keys": ["x"], "window": {"start": "day 2 10:00"}}]}
    assert "strengthened" in adjust_incident(spec, "a", ["detectable"], 7)
    assert spec["incidents"][0]["effects"] == {"x": "12sigma"}
    assert "moved" in adjust_incident(spec, "b", ["cascade_order"], 7)
    assert spec["incidents"][1]["window"]["start"] == "day 3 10:00"
    assert adjust_incident(spec, "b", ["cascade_order"], 3) is None  # day 3 is the last day


def test_empty_description_is_a_clear_error():
    with pytest.raises(DescriptionError, match="description is empty"):
        extract_draft("   ")
