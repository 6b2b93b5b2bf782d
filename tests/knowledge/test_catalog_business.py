"""The business and mobility part of the domain catalog (payments, product analytics, support,
mobility, logistics): facts a practitioner relies on when a described world is generated."""

from __future__ import annotations

import re

import numpy as np
import pint
import pytest

from tools.common.durations import parse_duration

OWN_FIELDS = ("payments", "product_analytics", "support_ops", "mobility", "logistics")
FIXED_DIRECTION = {"spike": "up", "dip": "down"}
CURRENCIES = ("USD", "EUR", "GBP")


@pytest.fixture(scope="module")
def ours(catalog):
    return [m for m in catalog.measurements if m.field in OWN_FIELDS]


def _registry() -> pint.UnitRegistry:
    try:
        from tools.describe.units import registry
        return registry()
    except ImportError:  # the project's registry adds currencies; without it, define them here
        ureg = pint.UnitRegistry()
        for line in ("USD = [currency_usd]", "EUR = [currency_eur]", "GBP = [currency_gbp]"):
            ureg.define(line)
        return ureg


def _effect(catalog, m, role: str):
    """The effect a state role has on a measurement: its own override, else the class default."""
    if role in m.states:
        return m.states[role]
    return catalog.role(role).effects.get(m.klass)


def test_every_field_has_enough_measurements(ours):
    per_field = {f: sum(m.field == f for m in ours) for f in OWN_FIELDS}
    assert len(ours) >= 85
    assert per_field["mobility"] >= 30, per_field
    assert all(n >= 15 for n in per_field.values()), per_field


def test_units_parse_with_pint(ours):
    ureg = _registry()
    for m in ours:
        for unit in [m.unit, *m.alt_units]:
            if unit is not None:
                ureg.parse_units(unit)  # raises on an unknown unit


def test_alternative_units_convert_from_the_main_unit(ours):
    ureg = _registry()
    for m in ours:
        if m.unit in CURRENCIES:
            continue  # currencies are separate base units: no fixed rate converts them
        for alt in m.alt_units:
            assert ureg.Quantity(1.0, m.unit).to(alt).magnitude > 0, (m.id, alt)


def test_money_is_never_negative_except_a_balance(ours):
    money = [m for m in ours if m.unit in CURRENCIES]
    assert len(money) >= 15
    for m in money:
        if m.id == "account_balance":
            continue
        assert m.bounds[0] is not None and m.bounds[0] >= 0, m.id
        assert m.decimals == 2 or m.integer, m.id


def test_counts_are_whole_numbers(ours):
    for m in ours:
        if m.noise == "poisson" or (m.unit is None and m.klass == "count"):
            assert m.integer, m.id
    for id_ in ("passenger_count", "items_in_cart", "messages_per_ticket", "reopen_count", "delivery_attempts",
                "gps_satellite_count", "agents_online", "queue_size", "csat_score", "engine_rpm"):
        assert next(m for m in ours if m.id == id_).integer, id_


def test_event_values_do_not_pile_up_on_their_lower_bound(ours):
    # Gaussian event noise: a spread close to the level would put many values at exactly 0
    # (whole-number counts such as delivery attempts do sit on their minimum most of the time)
    zero_is_common = {"tip_amount", "surge_multiplier"}  # most riders do not tip; most trips have no surge (1.0)
    for m in ours:
        if (m.event_level and m.noise == "iid" and not m.integer and m.bounds[0] is not None
                and m.id not in zero_is_common):
            assert (m.typical - m.bounds[0]) / m.spread >= 1.5, m.id


def test_known_levels_units_and_bounds(catalog):
    m = catalog.measurement
    assert m("pickup_wait_time").unit == "minute" and 2 <= m("pickup_wait_time").typical <= 15
    assert m("trip_fare").unit == "USD" and m("trip_fare").event_level and m("trip_fare").bounds[0] == 0
    assert m("surge_multiplier").bounds[0] == 1.0
    assert m("csat_score").bounds == (1, 5)
    assert m("decline_rate").unit == "percent" and m("decline_rate").worse == "up"
    assert m("conversion_rate").worse == "down" and 0.5 <= m("conversion_rate").typical <= 5
    assert m("latitude").bounds == (-90.0, 90.0) and m("longitude").bounds == (-180.0, 180.0)
    assert m("micromobility_battery_level").bounds == (0, 100)
    assert 85 <= m("engine_coolant_temperature").typical <= 95 and m("engine_coolant_temperature").unit == "degC"
    assert m("drone_altitude").bounds[0] == 0 and m("drone_altitude").typical <= 120  # regulatory ceiling
    assert 2 <= m("reefer_temperature").typical <= 8  # chilled cargo
    assert m("fraud_score").worse == "up" and m("fraud_score").bounds == (0, 100)
    assert m("parcel_weight").bounds[1] <= 70


def test_states_move_measurements_the_way_the_field_does(catalog):
    m = catalog.measurement
    charging = _effect(catalog, m("drone_altitude"), "charging")
    assert charging.scale == 0 and charging.noise_scale == 0  # on the pad, not in the air
    for odo in ("vehicle_odometer", "micromobility_odometer"):
        assert _effect(catalog, m(odo), "idle").scale == 1.0  # an odometer keeps its reading when parked
    for coord in ("latitude", "longitude"):
        parked = _effect(catalog, m(coord), "idle")
        assert parked is not None and parked.scale == 1.0 and parked.noise_scale == 0
    unplugged = _effect(catalog, m("reefer_temperature"), "down")
    assert unplugged.scale == 1.0 and unplugged.worse >= 6  # warms towards ambient
    assert _effect(catalog, m("queue_size"), "degraded").scale > 1  # queues grow when a desk struggles
    assert _effect(catalog, m("card_transaction_amount"), "compromised").scale > 1  # fraud spends more
    for engine in ("vehicle_fuel_rate", "engine_load", "engine_rpm"):
        assert _effect(catalog, m(engine), "idle").scale == 0, engine  # parked: engine off
    assert _effect(catalog, m("approval_rate"), "down").scale <= 0.2  # processor outage: nearly all decline
    assert 0 < _effect(catalog, m("vehicle_fuel_level"), "moving").worse < 1  # one drive does not empty a tank


def test_lifecycle_entities_end_in_terminal_states(catalog):
    lifecycle = [e for e in catalog.entities if e.field in OWN_FIELDS and e.kind == "lifecycle"]
    assert len(lifecycle) >= 10
    for e in lifecycle:
        terminal = {s.name for s in e.states if s.terminal}
        open_states = {s.name for s in e.states if not s.terminal}
        assert set(e.transitions) == open_states, e.id  # every open state leads on, terminals do not
        assert all(s.dwell for s in e.states if not s.terminal), e.id
        reaches = set(terminal)
        changed = True
        while changed:  # states from which a terminal state is reachable
            changed = False
            for src, row in e.transitions.items():
                if src not in reaches and set(row) & reaches:
                    reaches.add(src)
                    changed = True
        assert reaches == {s.name for s in e.states}, e.id
        assert all(catalog.measurement(x).event_level for x in e.measurements), e.id
        assert e.arrival and e.typical_duration, e.id


def test_lifecycle_dwells_add_up_to_the_typical_duration(catalog):
    """Expected time to a terminal state (dwells weighted by the transition shares) is within a
    factor of two of the entity's typical duration: a trip lasts ~25 minutes, not 3 hours."""
    for e in catalog.entities:
        if e.field not in OWN_FIELDS or e.kind != "lifecycle":
            continue
        open_states = [s.name for s in e.states if not s.terminal]
        index = {name: i for i, name in enumerate(open_states)}
        a = np.eye(len(open_states))
        dwell = np.array([parse_duration(next(s.dwell for s in e.states if s.name == n)) for n in open_states])
        for src, row in e.transitions.items():
            for dst, share in row.items():
                if dst in index:
                    a[index[src], index[dst]] -= share
        expected = np.linalg.solve(a, dwell)[0]  # from the initial state
        ratio = expected / parse_duration(e.typical_duration)
        assert 0.5 <= ratio <= 2.0, (e.id, round(ratio, 2))


def test_canonical_lifecycles(catalog):
    trip = catalog.entity("ride_hailing_trip")
    assert [s.name for s in trip.states][:4] == ["requested", "accepted", "driver_arriving", "in_progress"]
    assert {p.entity for p in trip.parents} == {"rider", "driver"}
    tx = catalog.entity("card_transaction")
    assert {"declined", "refunded", "fraudulent"} <= {s.name for s in tx.states}
    assert {p.entity for p in tx.parents} == {"customer", "merchant"}
    ticket = catalog.entity("support_ticket")
    assert [s.name for s in ticket.states][:3] == ["new", "open", "pending"]
    assert ticket.transitions["solved"]["reopened"] > 0
    claim = catalog.entity("insurance_claim")
    assert ["filed", "under_review"] == [s.name for s in claim.states][:2]
    assert claim.transitions["approved"] == {"paid": 1.0}


def test_parties_and_reporters(catalog):
    for id_ in ("customer", "user", "rider", "driver", "merchant", "support_agent", "restaurant", "policy_holder"):
        assert catalog.entity(id_).kind == "static", id_
    for id_ in ("e_scooter", "shared_bike", "drone", "truck", "fleet_vehicle", "delivery_van", "reefer_container"):
        e = catalog.entity(id_)
        assert e.kind == "periodic" and e.cadence, id_
        assert not any(catalog.measurement(x).event_level for x in e.measurements), id_
        assert any(s.role == "moving" for s in e.states) or id_ == "reefer_container", id_


def test_attribute_value_sets(catalog):
    a = catalog.attribute
    assert list(a("ticket_priority").values) == ["P1", "P2", "P3", "P4"]
    assert all(re.fullmatch(r"[A-Z]{2}", c) for c in a("country").values)
    assert {"grocery", "fuel", "restaurants", "travel"} <= set(a("merchant_category").values)
    assert set(a("channel").values) == {"web", "app", "phone", "email", "chat"}
    assert {"debit", "credit"} <= set(a("card_type").values)


def test_incidents_hit_the_worse_direction(catalog):
    ours = [i for i in catalog.incidents if i.field in OWN_FIELDS]
    for f in OWN_FIELDS:
        assert 4 <= sum(i.field == f for i in ours) <= 8, f
    for i in ours:
        assert i.magnitude_sigma >= 6 and i.measurements, i.id
        if i.kind in FIXED_DIRECTION:
            for x in i.measurements:
                assert catalog.measurement(x).worse == FIXED_DIRECTION[i.kind], (i.id, x)
    assert catalog.measurement("trip_fare").id in next(i for i in ours if i.id == "surge_pricing").measurements


def test_synonyms_are_lower_case_and_specific(catalog):
    generic = {"value", "level", "rate", "amount", "count", "time", "score"}
    entries = [*catalog.measurements, *catalog.entities, *catalog.attributes, *catalog.incidents]
    for x in entries:
        if getattr(x, "field", None) not in OWN_FIELDS:
            continue
        assert 3 <= len(x.synonyms) <= 8, x.id
        assert all(s == s.lower() and s not in generic for s in x.synonyms), x.id
