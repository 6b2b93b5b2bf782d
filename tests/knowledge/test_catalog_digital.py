"""The digital part of the domain catalog (network, compute, application, security): facts an SRE,
a network engineer or a SOC analyst relies on when a described world is generated."""

from __future__ import annotations

import pint
import pytest

from tools.describe.match import best_match

OWN_FIELDS = ("network", "compute", "application", "security")
MIN_MEASUREMENTS = {"network": 20, "compute": 20, "application": 25, "security": 12}
RAISES = {"spike", "flash_crowd"}  # kinds that can only push values up
LOWERS = {"dip"}


@pytest.fixture(scope="module")
def ours(catalog):
    return [m for m in catalog.measurements if m.field in OWN_FIELDS]


def test_each_digital_field_has_enough_measurements_and_incidents(catalog, ours):
    assert len(ours) >= 85
    for field, least in MIN_MEASUREMENTS.items():
        assert sum(m.field == field for m in ours) >= least, field
        incidents = [i for i in catalog.incidents if i.field == field]
        assert 4 <= len(incidents) <= 8, field
    entities = [e for e in catalog.entities if e.field in OWN_FIELDS]
    assert len(entities) >= 12
    assert {e.kind for e in entities} == {"periodic", "lifecycle", "static"}


def test_units_parse_with_pint_and_have_the_right_dimension(catalog, ours):
    ureg = pint.UnitRegistry()
    for m in ours:
        for unit in [m.unit, *m.alt_units]:
            if unit is not None:
                ureg.parse_units(unit)  # raises on an unknown unit
        for alt in m.alt_units:
            assert ureg.Quantity(1, m.unit).is_compatible_with(alt), (m.id, alt)
    dims = {"round_trip_time": "second", "latency_p95": "second", "build_duration": "second",
            "ci_queue_wait": "second", "memory_working_set": "byte", "downlink_throughput": "bit / second",
            "network_receive_rate": "byte / second", "gpu_temperature": "kelvin", "api_request_rate": "1 / second"}
    for id_, unit in dims.items():
        assert ureg.Quantity(1, catalog.measurement(id_).unit).is_compatible_with(unit), id_
    # logarithmic radio units are labels, never pint units (pint cannot add dBm)
    for id_ in ("rsrp", "rsrq", "sinr", "wifi_rssi", "optical_rx_power"):
        m = catalog.measurement(id_)
        assert m.unit is None and m.unit_label in ("dBm", "dB"), id_


@pytest.mark.parametrize("id_, low, high, bounds, integer, worse", [
    ("rsrp", -110, -80, (-156, -31), False, "down"),
    ("sinr", 5, 20, (-23, 40), False, "down"),
    ("cqi", 7, 12, (0, 15), True, "down"),
    ("packet_loss", 0, 1, (0, 100), False, "up"),
    ("round_trip_time", 5, 80, (0, None), False, "up"),
    ("handover_success_rate", 95, 100, (0, 100), False, "down"),
    ("cpu_utilization", 10, 70, (0, 100), False, "up"),
    ("container_restarts", 0, 0.1, (0, None), True, "up"),
    ("memory_working_set", 100, 2048, (0, None), False, "up"),
    ("latency_p95", 50, 1000, (0, None), False, "up"),
    ("api_error_rate", 0, 2, (0, 100), False, "up"),
    ("cache_hit_ratio", 80, 99, (0, 100), False, "down"),
    ("apdex", 0.85, 1, (0, 1), False, "down"),
    ("build_duration", 2, 60, (0, 1440), False, "up"),
    ("pipeline_retries", 0, 1, (0, None), True, "up"),
    ("test_failures", 0, 2, (0, None), True, "up"),
    ("cvss_score", 4, 9, (0, 10), False, "up"),
    ("security_risk_score", 5, 40, (0, 100), True, "up"),
])
def test_known_levels_bounds_and_directions(catalog, id_, low, high, bounds, integer, worse):
    m = catalog.measurement(id_)
    assert low <= m.typical <= high
    assert tuple(m.bounds) == bounds
    assert m.integer is integer
    assert m.worse == worse


def test_percentages_are_bounded_and_counts_are_whole(ours):
    for m in ours:
        if m.unit == "percent":
            assert m.bounds[1] == 100, m.id
            if m.id != "slo_error_budget_remaining":  # an exhausted error budget goes negative
                assert m.bounds[0] == 0, m.id
        if m.noise == "poisson":
            assert m.integer and m.bounds[0] == 0 and m.unit is None, m.id
        if m.integer:
            assert m.decimals in (None, 0), m.id


def test_durations_use_human_units_not_milliseconds(catalog):
    """Pipeline durations are minutes and queue waits seconds, never ms (issue 14: '120 ms builds')."""
    assert catalog.measurement("build_duration").unit == "minute"
    assert catalog.measurement("batch_job_duration").unit == "minute"
    assert catalog.measurement("ci_queue_wait").unit == "second"
    assert catalog.measurement("lead_time_for_changes").unit == "hour"


def test_lifecycle_entities_end_in_terminal_states(catalog):
    lifecycle = [e for e in catalog.entities if e.field in OWN_FIELDS and e.kind == "lifecycle"]
    assert len(lifecycle) >= 6
    for e in lifecycle:
        terminal = {s.name for s in e.states if s.terminal}
        assert terminal and not terminal & set(e.transitions), e.id
        for s in e.states:
            assert (s.dwell is None) == s.terminal, (e.id, s.name)
            if not s.terminal:
                assert s.name in e.transitions, (e.id, s.name)
        # from the initial state every path can reach a terminal state
        reach, frontier = set(), [e.states[0].name]
        while frontier:
            name = frontier.pop()
            if name not in reach:
                reach.add(name)
                frontier += list(e.transitions.get(name, {}))
        for name in reach - terminal:
            seen, todo = set(), [name]
            while todo:
                cur = todo.pop()
                seen.add(cur)
                todo += [t for t in e.transitions.get(cur, {}) if t not in seen]
            assert seen & terminal, (e.id, name)
        assert all(catalog.measurement(m).event_level for m in e.measurements), e.id
        assert e.arrival and e.typical_duration, e.id


def test_pipeline_run_lifecycle_is_the_canonical_one(catalog):
    run = catalog.entity("pipeline_run")
    roles = {s.name: s.role for s in run.states}
    assert roles == {"queued": "waiting", "running": "in_progress", "retrying": "waiting",
                     "passed": "success", "failed": "failure", "cancelled": "cancelled"}
    assert run.states[0].name == "queued"
    assert [p.entity for p in run.parents] == ["repository"]
    assert catalog.entity("repository").kind == "static"
    # a passed run has no failing test; a failed one has more than usual
    failures = catalog.measurement("test_failures")
    assert failures.states["success"].scale == 0 and failures.states["failure"].worse > 0


def test_incident_directions_match_what_the_kind_can_do(catalog):
    for i in catalog.incidents:
        if i.field not in OWN_FIELDS:
            continue
        assert i.magnitude_sigma >= 6, i.id
        for id_ in i.measurements:
            worse = catalog.measurement(id_).worse
            if i.kind in RAISES:
                assert worse == "up", (i.id, id_)
            if i.kind in LOWERS:
                assert worse == "down", (i.id, id_)


@pytest.mark.parametrize("part, phrase, expected", [
    ("measurements", "RSRP", "rsrp"),
    ("measurements", "p95 latency", "latency_p95"),
    ("measurements", "pod restarts", "container_restarts"),
    ("measurements", "failed logins", "failed_logins"),
    ("measurements", "consumer lag", "consumer_lag"),
    ("measurements", "build time", "build_duration"),
    ("measurements", "PRB utilisation", "prb_utilization"),
    ("entities", "pipeline runs", "pipeline_run"),
    ("entities", "pods", "pod"),
    ("entities", "cell sites", "cell_site"),
    ("attributes", "namespace", "k8s_namespace"),
    ("attributes", "frequency band", "frequency_band"),
])
def test_user_phrases_find_the_digital_archetype(catalog, part, phrase, expected):
    match = best_match(catalog, part, phrase)
    assert match is not None and match.id == expected


@pytest.mark.parametrize("part, phrase", [
    ("measurements", "response time"),  # a nurse's alarm response time is no HTTP latency
    ("measurements", "number of guests"),
    ("measurements", "number of replies"),
    ("measurements", "wait"),
    ("measurements", "load"),
    ("entities", "containers"),  # shipping containers are no app containers
    ("entities", "guests"),
    ("entities", "service"),
    ("attributes", "severity"),
])
def test_other_fields_words_are_not_taken_by_digital_archetypes(catalog, part, phrase):
    digital = {x.id for x in getattr(catalog, part) if x.field in OWN_FIELDS}
    match = best_match(catalog, part, phrase)
    assert match is None or match.id not in digital, match
