"""Understanding descriptions with the domain catalog: lifecycles become event logs, mixed domains get
both tables, every named item is placed or listed as not understood, values come from the catalog."""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from tools.describe.compose_world import compose_world
from tools.describe.errors import DescriptionError
from tools.describe.understand import understand

CAT = load_catalog()


def _ent(draft, pattern: str):
    import re

    return next(e for e in draft.entities if re.search(pattern, e.name))


def test_named_quantities_with_units_are_all_kept_and_matched_with_a_score():
    d = understand("40 wind turbines reporting rotor speed in rpm, power output in kW and nacelle temperature "
                   "every 10 minutes over two weeks", CAT)
    e = d.entity
    assert (e.count, e.cadence, d.horizon, e.kind) == (40, "10m", "14d", "periodic")
    got = {m.name: (m.catalog_id, m.unit) for m in e.measurements}
    assert set(got) == {"rotor_speed", "power_output", "nacelle_temperature"}
    assert got["power_output"][1] == "kW" and all(c for c, _ in got.values())
    assert "score 1.00" in d.evidence["measurement wind_turbine.rotor_speed"]


def test_a_lifecycle_domain_becomes_an_event_log_with_its_named_states_and_parents():
    text = ("Ride-hailing trips in one city over 7 days, about 3000 trips a day. A trip is requested, accepted, "
            "started and then completed or cancelled; each trip has a fare in USD, a distance in km and a rider.")
    d = understand(text, CAT)
    trip = _ent(d, "trip")
    assert trip.kind == "lifecycle" and trip.count == 21000
    assert trip.states == ["requested", "accepted", "started", "completed", "cancelled"]
    assert set(trip.terminal) == {"completed", "cancelled"}
    spec, decisions, _ = compose_world(d, CAT)
    ent = spec.entity(trip.name)
    assert ent.emission.kind == "on_transition" and ent.arrival is not None
    assert set(ent.states.terminal) == {"completed", "cancelled"}
    fare = next(m for m in ent.measurements if "fare" in m.name)
    assert fare.unit == "USD" and fare.plausible.low == 0  # money is never negative


def test_a_mixed_description_gets_telemetry_and_an_event_log():
    text = ("A fleet of 200 e-scooters reporting battery level in % and speed in km/h every minute for 3 days; "
            "riders take trips that are started, paused or ended.")
    d = understand(text, CAT)
    kinds = {e.kind for e in d.entities}
    assert {"periodic", "lifecycle"} <= kinds
    spec, _, _ = compose_world(d, CAT)
    emissions = {e.emission.kind for e in spec.entities if e.emission}
    assert emissions == {"periodic", "on_transition"}


def test_attributes_with_values_levels_and_limits_from_the_text():
    d = understand("200 smart meters reporting consumption in kWh and voltage every 30 minutes for four weeks. "
                   "tariff plan: standard, economy 7 or time-of-use, and a region per household (north, midlands, "
                   "south). Meters are normal, offline or tampered.", CAT)
    attrs = {a.name: a.values for a in d.entity.attributes}
    assert attrs["tariff_plan"] == ["standard", "economy 7", "time-of-use"]
    assert attrs["region"] == ["north", "midlands", "south"]
    assert d.entity.states == ["normal", "offline", "tampered"]
    d2 = understand("30 freezers in a warehouse, air temperature around -20 °C every 5 minutes for 2 weeks", CAT)
    t = d2.entity.measurements[0]
    assert (t.level, t.unit) == (-20.0, "°C")


def test_state_roles_drive_measurements_the_way_the_domain_does():
    text = ("Bedside monitors in a 24-bed ICU: every minute heart rate, SpO2 and respiratory rate for 3 days. "
            "A patient is stable, deteriorating or in alarm.")
    spec, _, _ = compose_world(understand(text, CAT), CAT)
    e = spec.entities[-1]
    spo2 = next(m for m in e.measurements if m.name == "spo2")
    assert spo2.states["in_alarm"].shift < 0  # SpO2 falls in alarm, never rises
    assert spo2.bounds[1] <= 100 and spo2.plausible.high == 100
    hr = next(m for m in e.measurements if m.name == "heart_rate")
    assert hr.states["in_alarm"].shift > 0 and hr.integer


def test_what_the_catalog_does_not_know_is_listed_not_dropped():
    d = understand("40 beehives reporting hive weight in kg and wingbeat harmonics every hour over 2 weeks", CAT)
    names = {m.name for m in d.entity.measurements}
    assert {"hive_weight", "wingbeat_harmonics"} <= names
    assert any("wingbeat harmonics" in x for x in d.not_understood)


@pytest.mark.parametrize("text", ["", "   ", "banana", "hello there, how are you?"])
def test_a_description_with_nothing_to_model_is_a_clear_error(text):
    with pytest.raises(DescriptionError, match="what a description needs"):
        understand(text, CAT)


def test_default_incidents_move_the_way_that_means_worse():
    text = "120 bedside monitors reporting SpO2 and heart rate every minute over 3 days"
    spec, _, _ = compose_world(understand(text, CAT), CAT)
    effects = {k: v for i in spec.incidents for k, v in (getattr(i, "effects", None) or {}).items()}
    assert str(effects.get("spo2", "-")).startswith("-")  # an SpO2 incident is a desaturation
