"""The physical part of the domain catalog (vital signs, healthcare operations, energy, environment,
rotating machinery, manufacturing, agriculture): the facts a domain expert would check first."""

from __future__ import annotations

from collections import Counter

import pint
import pytest

from knowledge.catalog import catalog_files
from tools.common.durations import parse_duration

PHYSICAL_FIELDS = {
    "vital_signs": 20, "healthcare_ops": 15, "energy": 35, "environment": 25, "rotating_machinery": 18,
    "manufacturing": 20, "agriculture": 20,
}


@pytest.fixture(scope="module")
def physical(catalog):
    return [m for m in catalog.measurements if m.field in PHYSICAL_FIELDS]


@pytest.fixture(scope="module")
def units():
    ureg = pint.UnitRegistry()
    for line in ("bpm = 1 / minute", "USD = [currency_usd]", "EUR = [currency_eur]", "GBP = [currency_gbp]"):
        ureg.define(line)
    return ureg


def test_physical_catalog_files_exist_and_every_field_is_covered(catalog, physical):
    assert any(p.name.startswith("physical") for p in catalog_files())
    counts = Counter(m.field for m in physical)
    for field, minimum in PHYSICAL_FIELDS.items():
        assert counts[field] >= minimum, f"{field}: {counts[field]} measurements, want >= {minimum}"
    assert sum(counts.values()) >= 95


def test_every_unit_parses_with_pint(physical, units):
    for m in physical:
        for unit in [m.unit, *m.alt_units]:
            if unit is not None:
                units.parse_units(unit)  # raises on an unknown unit


@pytest.mark.parametrize(("mid", "unit", "typical", "bounds", "integer", "worse"), [
    ("heart_rate", "1/minute", 72, (20, 250), True, "up"),
    ("spo2", "percent", 97, (50, 100), True, "down"),
    ("systolic_bp", "mmHg", 120, (40, 250), True, "up"),  # hypertensive crisis tops out near 250
    ("diastolic_bp", "mmHg", 80, (20, 150), True, "up"),
    ("respiratory_rate", "1/minute", 16, (0, 70), True, "up"),
    ("body_temperature", "degC", 36.8, (25, 45), False, "up"),
    ("mains_voltage", "volt", 230, (0, 300), False, "down"),
    ("grid_frequency", "hertz", 50, (45, 65), False, "down"),
    ("meter_energy_consumption", "kilowatt_hour", 0.25, (0, 15), False, "up"),
    ("freezer_temperature", "degC", -20, (-50, 40), False, "up"),
    ("vibration_rms", "millimeter / second", 2.0, (0, 100), False, "up"),
    ("door_to_triage_time", "minute", 10, (0, 720), True, "up"),
])
def test_expert_levels_units_and_directions(catalog, mid, unit, typical, bounds, integer, worse):
    m = catalog.measurement(mid)
    assert (m.unit, m.typical, tuple(m.bounds), m.integer, m.worse) == (unit, typical, bounds, integer, worse)


def test_blood_pressure_is_mmhg_not_air_pressure(catalog, units):
    for mid in ("systolic_bp", "diastolic_bp", "mean_arterial_pressure"):
        m = catalog.measurement(mid)
        assert units.parse_units(m.unit) == units.parse_units("mmHg")
        assert m.bounds[1] <= 300
    assert catalog.measurement("barometric_pressure").typical == 1013


def test_counts_are_whole_and_shares_stay_within_their_logical_ceiling(catalog, physical):
    for m in physical:
        if m.noise == "poisson":
            assert m.integer, f"{m.id}: a count per interval is a whole number"
        if m.unit == "percent":
            assert m.bounds[0] is not None and m.bounds[0] >= 0 and m.bounds[1] is not None, m.id
            assert m.bounds[1] <= 100 or m.klass in ("storage", "consumption", "throughput"), m.id
    for mid in ("spo2", "bess_state_of_charge", "relative_humidity", "soil_moisture", "oee"):
        assert catalog.measurement(mid).bounds[1] == 100, mid


def test_daily_shapes_follow_the_field(catalog):
    assert catalog.measurement("meter_energy_consumption").daily == "evening_peak"
    assert catalog.measurement("inverter_ac_power").daily == "solar"
    assert catalog.measurement("ed_arrivals").daily == "day_peak"


def test_state_effects_keep_values_inside_hard_bounds(catalog, physical):
    """Every role (class default or the archetype's override) keeps the level physically possible:
    no negative urine output in alarm, no SpO2 above 100, no 0 Hz grid while the meter is offline."""
    for m in physical:
        sign = 1 if m.worse == "up" else -1
        lo, hi = m.bounds
        for role in catalog.roles:
            effect = m.states.get(role.id) or role.effects.get(m.klass)
            if effect is None:
                continue
            level = m.typical * effect.scale + sign * effect.worse * m.spread
            assert (lo is None or level >= lo) and (hi is None or level <= hi), (m.id, role.id, level)


def test_states_move_vitals_and_machines_the_way_experts_expect(catalog):
    roles = {r.id: r for r in catalog.roles}

    def level(mid, role):
        m = catalog.measurement(mid)
        effect = m.states.get(role) or roles[role].effects.get(m.klass)
        sign = 1 if m.worse == "up" else -1
        return m.typical * effect.scale + sign * effect.worse * m.spread

    assert 85 <= level("spo2", "alarm") <= 91  # alarm threshold is 90 %
    assert level("heart_rate", "alarm") > 100  # tachycardia
    assert level("freezer_temperature", "down") > -15  # warming without a compressor
    assert level("blade_pitch_angle", "down") > 80  # a stopped turbine is feathered
    assert level("turbine_power_output", "down") == 0
    assert level("meter_energy_consumption", "tampered") < catalog.measurement("meter_energy_consumption").typical
    assert level("ev_charging_power", "idle") == 0


def test_lifecycle_entities_always_end_in_a_terminal_state(catalog):
    lifecycle = [e for e in catalog.entities if e.kind == "lifecycle" and e.field in PHYSICAL_FIELDS]
    assert {"ed_visit", "ev_charging_session", "production_batch", "maintenance_work_order"} <= {e.id for e in lifecycle}
    for e in lifecycle:
        terminal = {s.name for s in e.states if s.terminal}
        for s in e.states:
            if s.terminal:
                assert s.name not in e.transitions and s.dwell is None, (e.id, s.name)
            else:
                assert s.name in e.transitions and parse_duration(s.dwell) > 0, (e.id, s.name)
        reach = set(terminal)  # states from which a terminal state is reachable
        while True:
            more = {src for src, row in e.transitions.items() if any(t in reach for t, p in row.items() if p > 0)}
            if more <= reach:
                break
            reach |= more
        assert {s.name for s in e.states} <= reach, f"{e.id}: some states never reach a terminal state"
        assert e.arrival and parse_duration(e.typical_duration) > 0
        assert all(catalog.measurement(m).event_level for m in e.measurements), e.id


def test_ed_visit_has_the_canonical_states(catalog):
    visit = catalog.entity("ed_visit")
    names = [s.name for s in visit.states]
    assert names[:4] == ["arrived", "triaged", "waiting", "in_treatment"]
    roles = {s.name: s.role for s in visit.states}
    assert roles["admitted"] == roles["discharged"] == "success"
    assert roles["left_without_being_seen"] == "cancelled"
    assert [p.entity for p in visit.parents][0] == "patient_record"
    assert "triage_level" in visit.attributes


def test_periodic_reporters_have_a_cadence_and_their_measurements(catalog):
    periodic = [e for e in catalog.entities if e.kind == "periodic" and e.field in PHYSICAL_FIELDS]
    assert len(periodic) >= 14
    for e in periodic:
        assert parse_duration(e.cadence) > 0 and e.measurements, e.id
    turbine = catalog.entity("wind_turbine")
    assert {"turbine_rotor_speed", "turbine_power_output", "nacelle_temperature"} <= set(turbine.measurements)
    assert turbine.cadence == "10m"


def test_attributes_have_the_labels_the_field_writes(catalog):
    assert list(catalog.attribute("triage_level").values) == ["1", "2", "3", "4", "5"]
    assert {"standard", "time_of_use", "economy_7"} <= set(catalog.attribute("tariff_plan").values)
    assert "Holstein" in catalog.attribute("cattle_breed").values


def test_incidents_per_field_hit_the_worse_direction(catalog):
    physical_incidents = [i for i in catalog.incidents if i.field in PHYSICAL_FIELDS]
    per_field = Counter(i.field for i in physical_incidents)
    for field in PHYSICAL_FIELDS:
        assert 4 <= per_field[field] <= 8, (field, per_field[field])
    for i in physical_incidents:
        assert i.measurements or i.classes, i.id
        assert i.magnitude_sigma >= 6, i.id
        parse_duration(i.duration)
    assert catalog.measurement(next(i for i in catalog.incidents if i.id == "desaturation").measurements[0]).worse == "down"
    assert next(i for i in catalog.incidents if i.id == "voltage_sag").kind == "dip"
    assert next(i for i in catalog.incidents if i.id == "bearing_wear").kind == "slow_drift"
    assert next(i for i in catalog.incidents if i.id == "ed_surge").kind == "flash_crowd"


# head nouns users write alone ("freezers reporting temperature"); the entity's usual measurements decide
SHARED_HEAD_NOUNS = {"temperature", "moisture", "humidity", "co2", "flow", "wind speed"}


def test_synonyms_are_lower_case_and_shared_only_as_head_nouns(catalog):
    seen: dict[tuple[str, str], str] = {}
    for part in ("measurements", "entities", "attributes"):
        for x in getattr(catalog, part):
            if x.field not in PHYSICAL_FIELDS:
                continue
            assert 3 <= len(x.synonyms) <= 8 or part == "attributes", x.id
            for s in x.synonyms:
                assert s == s.lower(), (x.id, s)
                shared = part == "measurements" and s in SHARED_HEAD_NOUNS
                assert shared or (part, s) not in seen, f"{part} synonym {s!r} in {seen.get((part, s))} and {x.id}"
                seen[(part, s)] = x.id


def test_a_shared_head_noun_is_unambiguous_for_every_reporter(catalog):
    """'temperature' of a freezer is the freezer temperature, of a patient the body temperature."""
    assert "temperature" in catalog.measurement("freezer_temperature").synonyms
    for e in catalog.entities:
        if e.field not in PHYSICAL_FIELDS:
            continue
        for noun in SHARED_HEAD_NOUNS:
            owners = [m for m in e.measurements if noun in catalog.measurement(m).synonyms]
            assert len(owners) <= 1, (e.id, noun, owners)
