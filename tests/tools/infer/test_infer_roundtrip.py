"""Round trip: generate from a known spec (derived from the ecommerce and telecom packs) -> infer ->
the same roles, states, relations and cadence; transition probabilities within 0.05; measurement
levels and regenerated means within 5%."""

from __future__ import annotations

import textwrap

import pandas as pd
import pytest

from tools.generate import generate_bundle
from tools.infer import infer
from tools.infer.fidelity import entity_for_table
from tools.spec import parse_duration, parse_spec_text

KNOWN = textwrap.dedent("""
    name: roundtrip
    seed: 21
    start: "2026-01-05T00:00:00Z"
    horizon: 3d
    entities:
      - name: user
        table: users
        id: {column: user_id, format: "USER_{i}"}
        count: 300
        attributes:
          - {name: age, dist: {kind: lognormal, median: 32, sigma: 0.28, decimals: 0}}
          - {name: country, dist: {kind: categorical, values: {IND: 0.36, US: 0.32, SG: 0.32}}}
      - name: session
        table: sessions
        id: {column: session_id, format: "SESSION_{i}"}
        count: 4000
        attributes:
          - {name: user_id, dist: {kind: foreign_key, entity: user}}
          - {name: referrer, dist: {kind: categorical, values: {email: 0.3, social: 0.3, search: 0.4}}}
        emission: {kind: on_transition, timestamp_column: timestamp}
        states:
          initial: homepage
          terminal: [purchase, exit]
          states:
            homepage: {dwell: {kind: lognormal, median: 20s, sigma: 0.8}}
            search: {dwell: {kind: lognormal, median: 40s, sigma: 0.7}}
            product: {dwell: {kind: lognormal, median: 60s, sigma: 0.7}}
            cart: {dwell: {kind: lognormal, median: 90s, sigma: 0.9}}
            purchase: {}
            exit: {}
          transitions:
            homepage: {exit: 0.45, search: 0.40, product: 0.15}
            search: {product: 0.85, exit: 0.15}
            product: {search: 0.5, cart: 0.3, exit: 0.2}
            cart: {purchase: 0.6, product: 0.2, exit: 0.2}
          derived_columns:
            page: {homepage: homepage, search: search, product: product, cart: cart, purchase: purchase, exit: exit}
            action: {search: browse, product: view_product, cart: add_to_cart, purchase: complete, exit: leave}
      - name: transport_link
        table: transport_link
        id: {column: Device_ID, format: "RTR_{i:03d}"}
        count: 20
        attributes:
          - {name: Interface_ID, dist: {kind: categorical, values: {eth0: 0.5, eth1: 0.5}}}
        emission: {kind: periodic, cadence: 15m, timestamp_column: Timestamp}
        states:
          column: link_state
          initial: healthy
          states:
            healthy: {dwell: {kind: exponential, mean: 6h}}
            degraded: {dwell: {kind: exponential, mean: 2h}}
          transitions:
            healthy: {degraded: 1.0}
            degraded: {healthy: 1.0}
        measurements:
          - name: Bandwidth_Utilization_Out
            base: 60
            seasonality: [{period: 1d, amplitude: 20, peak: 14h45m}]
            noise: {kind: ar, phi: [0.8], sigma: 2}
            bounds: [0, 100]
            decimals: 2
          - name: Latency_ms
            base: 12
            noise: {kind: iid, sigma: 1}
            states: {degraded: {shift: 15}}
            bounds: [0, null]
            decimals: 2
      - name: cell_site
        table: cell_site
        id: {column: Cell_ID, format: "CELL_{i}"}
        count: 60
        attributes:
          - {name: Transport_Device_ID, dist: {kind: foreign_key, entity: transport_link}}
          - {name: Base_Station_ID, dist: {kind: categorical, values: {eNB_001: 0.5, gNB_001: 0.5}}}
        emission: {kind: periodic, cadence: 15m, timestamp_column: Timestamp, jitter: 40s, missing_rate: 0.05}
        measurements:
          - name: RRC_ConnEstabAtt
            base: 120
            noise: {kind: poisson}
            bounds: [0, null]
          - name: Cell_Availability
            base: 99.5
            noise: {kind: iid, sigma: 0.05}
            bounds: [0, 100]
            decimals: 3
""")


@pytest.fixture(scope="module")
def roundtrip(tmp_path_factory):
    spec = parse_spec_text(KNOWN)
    out = tmp_path_factory.mktemp("rt") / "bundle"
    generate_bundle(spec, out)
    files = [out / "data" / f"{e.table_name}.parquet" for e in spec.entities]
    result, _ = infer(files, seed=4)
    frames = {f.stem: pd.read_parquet(f) for f in files}
    return spec, result, frames


def test_same_roles_relations_and_cadence(roundtrip):
    known, result, _ = roundtrip
    profiles = {p.name: p for p in result.profiles}
    assert profiles["users"].keys == ["user_id"] and profiles["users"].emission is None
    assert profiles["sessions"].keys == ["session_id"] and profiles["sessions"].emission == "on_transition"
    assert profiles["transport_link"].keys == ["Device_ID"] and profiles["cell_site"].keys == ["Cell_ID"]
    for t in ("transport_link", "cell_site"):
        assert profiles[t].emission == "periodic" and profiles[t].cadence == 900
    assert profiles["transport_link"].missing_rate == 0 and profiles["transport_link"].jitter == 0
    cells = entity_for_table(result.spec, "cell_site").emission
    assert cells.missing_rate == pytest.approx(0.05, abs=0.01)
    assert 35 <= parse_duration(cells.jitter) <= 41  # rows lag their tick by 0..39 s
    assert {str(r) for r in result.relations} == {"sessions.user_id -> users.user_id",
                                                  "cell_site.Transport_Device_ID -> transport_link.Device_ID"}
    roles = {p.name: {c.name: c.role for c in p.columns.values()} for p in result.profiles}
    assert roles["sessions"] == {"session_id": "key", "user_id": "relation", "referrer": "attribute",
                                 "page": "state", "action": "state", "timestamp": "time"}
    assert roles["transport_link"] == {"Device_ID": "key", "Interface_ID": "attribute", "link_state": "state",
                                       "Bandwidth_Utilization_Out": "measurement", "Latency_ms": "measurement",
                                       "Timestamp": "time"}
    for e in known.entities:
        fitted = entity_for_table(result.spec, e.table_name)
        assert fitted.count == e.count and fitted.id.format == e.id.format
        assert {m.name for m in fitted.measurements} == {m.name for m in e.measurements}


def _page_names(sm) -> dict[str, str]:
    """State name -> page label, so fitted combined names map to the known states."""
    return sm.derived_columns["page"] if "page" in sm.derived_columns else {s: s for s in sm.states}


def test_same_states_and_transitions_within_005(roundtrip):
    known, result, _ = roundtrip
    for table, entity in (("sessions", "session"), ("transport_link", "transport_link")):
        k, f = known.entity(entity).states, entity_for_table(result.spec, table).states
        fname = _page_names(f)  # fitted state -> page (the known state's name)
        assert sorted(fname.values()) == sorted(k.states)
        assert {fname[s] for s in f.terminal} == set(k.terminal)
        assert fname[f.initial] == k.initial
        for fs, row in f.transitions.items():
            expected = k.transitions[fname[fs]]
            got = {fname[t]: p for t, p in row.items()}
            for target in set(expected) | set(got):
                assert got.get(target, 0) == pytest.approx(expected.get(target, 0), abs=0.05), (table, fs, target)


def test_measurement_levels_and_regenerated_means_within_5_percent(roundtrip):
    from tools.infer.fidelity import regenerate

    known, result, frames = roundtrip
    regen = regenerate(result.spec, seed=9)
    for e in known.entities:
        fitted = entity_for_table(result.spec, e.table_name)
        for m in e.measurements:
            fm = next(x for x in fitted.measurements if x.name == m.name)
            assert fm.base == pytest.approx(m.base, rel=0.05), m.name
            orig, new = frames[e.table_name][m.name].mean(), regen[e.table_name][m.name].mean()
            assert new == pytest.approx(orig, rel=0.05), m.name
    link = entity_for_table(result.spec, "transport_link")
    util = next(x for x in link.measurements if x.name == "Bandwidth_Utilization_Out")
    assert util.noise.kind == "ar" and util.noise.phi[0] == pytest.approx(0.8, abs=0.1)
    assert util.seasonality[0].amplitude == pytest.approx(20, rel=0.1) and util.seasonality[0].peak.startswith("14h")
    latency = next(x for x in link.measurements if x.name == "Latency_ms")
    assert latency.states["degraded"].shift == pytest.approx(15, rel=0.05)
    rrc = next(x for x in entity_for_table(result.spec, "cell_site").measurements if x.name == "RRC_ConnEstabAtt")
    assert rrc.noise.kind == "poisson"
    assert all(r.ok for r in result.fidelity), [(r.table, r.column, r.value) for r in result.fidelity if not r.ok]
