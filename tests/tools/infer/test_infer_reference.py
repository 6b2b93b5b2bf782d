"""Acceptance on the public AgentFuel tables: roles, keys (incl. the composite link key), relations
(incl. the composite cell -> link one), cadence, and a fidelity table within the README thresholds."""

from __future__ import annotations

import pytest

from tools.infer import infer
from tools.spec.io import parse_spec_text

TELECOM = ["transport_link{}.csv", "core_node{}.csv", "cell_site{}.csv"]


def _roles(result, table: str) -> dict[str, str]:
    p = next(p for p in result.profiles if p.name == table)
    return {c.name: c.role for c in p.columns.values()}


def _profile(result, table: str):
    return next(p for p in result.profiles if p.name == table)


@pytest.fixture(scope="module")
def ecommerce(ref):
    return infer([ref / "ecommerce_users_data.csv", ref / "ecommerce_sessions_data.csv"], seed=3)


@pytest.fixture(scope="module", params=["_data", "_with_inc_data"])
def telecom(ref, request):
    return infer([ref / f.format(request.param) for f in TELECOM], seed=5), request.param


def test_ecommerce_roles_keys_relation_and_cadence(ecommerce):
    result, _ = ecommerce
    users, sessions = _profile(result, "ecommerce_users_data"), _profile(result, "ecommerce_sessions_data")
    assert users.keys == ["user_id"] and users.emission is None and users.entities == 100
    assert _roles(result, "ecommerce_users_data") == {"user_id": "key", "age": "attribute", "country": "attribute",
                                                      "subscription_type": "attribute", "device_type": "attribute"}
    assert sessions.keys == ["session_id"] and sessions.entities == 500
    assert _roles(result, "ecommerce_sessions_data") == {
        "session_id": "key", "user_id": "relation", "referrer": "attribute", "page": "state", "action": "state",
        "did_purchase": "derived", "timestamp": "time"}
    assert sessions.emission == "on_transition" and sessions.cadence == 60
    assert [str(r) for r in result.relations] == ["ecommerce_sessions_data.user_id -> ecommerce_users_data.user_id"]


def test_ecommerce_state_machine_matches_the_clickstream(ecommerce):
    result, _ = ecommerce
    sm = result.spec.entity("ecommerce_sessions_data").states
    assert sm.initial == "homepage"
    assert set(sm.terminal) == {"exit_leave", "exit_cart_abandoned", "purchase_complete"}
    assert sm.derived_columns["page"]["search_back"] == "search" and sm.derived_columns["action"]["homepage"] is None
    assert sm.derived_columns["did_purchase"]["purchase_complete"] == "1"
    # checkout -> purchase is 63 of 88 checkouts in the sample
    assert sm.transitions["checkout_checkout"]["purchase_complete"] == pytest.approx(63 / 88, abs=1e-4)
    assert sm.states["homepage"].dwell.kind == "fixed"


def test_telecom_keys_relations_and_cadence(telecom):
    (result, _), variant = telecom
    link, core, cell = (_profile(result, f"{t}{variant}") for t in ("transport_link", "core_node", "cell_site"))
    assert link.keys == ["Device_ID", "Interface_ID"] and link.entities == 6
    assert core.keys == ["Core_Node_ID"] and any("not unique" in w for w in core.warnings)
    assert (core.entities, core.series) == (6, 16)  # 16 series under 6 ids: the spec writes 16 entities
    assert result.spec.entity(f"core_node{variant}").count == 16
    assert cell.keys == ["Cell_ID"] and cell.entities == 100
    for p in (link, core, cell):
        assert p.emission == "periodic" and p.cadence == 900 and p.missing_rate == 0
    assert [str(r) for r in result.relations] == [
        f"cell_site{variant}.(Transport_Device_ID, Transport_Interface_ID) -> "
        f"transport_link{variant}.(Device_ID, Interface_ID)"]
    roles = _roles(result, f"cell_site{variant}")
    assert {c for c, r in roles.items() if r == "attribute"} == {"Base_Station_ID", "Location_Lat", "Location_Lon"}
    assert {c for c, r in roles.items() if r == "measurement"} == {
        "RRC_ConnEstabFail", "RRC_ConnEstabSucc", "RRC_ConnEstabAtt", "ERAB_EstabInitSuccNbr_QCI",
        "DL_PRB_Utilization", "Cell_Availability"}
    assert cell.columns["RRC_ConnEstabAtt"].kind == "count" and cell.columns["DL_PRB_Utilization"].kind == "gauge"
    e = result.spec.entity(f"cell_site{variant}")
    dists = {a.name: a.dist.kind for a in e.attributes}
    assert dists["Transport_Device_ID"] == "foreign_key" and dists["Transport_Interface_ID"] == "parent_attribute"
    util = next(m for m in e.measurements if m.name == "DL_PRB_Utilization")
    assert util.noise.kind == "ar" and 0.6 < util.noise.phi[0] < 0.95
    assert util.seasonality and util.seasonality[0].period == "1d" and util.seasonality[0].peak.startswith("14h")


def test_fidelity_table_within_thresholds(ecommerce, telecom):
    for result, report in (ecommerce, telecom[0]):
        assert result.fidelity, "the fidelity table is computed"
        bad = [(r.table, r.column, r.metric, round(r.value, 3), r.threshold) for r in result.fidelity if not r.ok]
        assert not bad
        assert "## Fidelity" in report and "| cadence |" in report


def test_written_spec_round_trips_with_provenance_comments(ecommerce, telecom):
    for result, _ in (ecommerce, telecom[0]):
        assert parse_spec_text(result.yaml_text) == result.spec
        text = result.yaml_text
        assert text.count("# fitted from ") == len(result.spec.entities)
        assert "rows" in text and "# relation " in text
        for p in result.profiles:
            for m in result.spec.entity(p.name).measurements:
                assert f"# {p.name}.{m.name} (" in text


def test_count_identities_become_formulas(telecom):
    (result, _), variant = telecom
    att = next(m for m in result.spec.entity(f"cell_site{variant}").measurements if m.name == "RRC_ConnEstabAtt")
    # Att = Succ + Fail on every row (the clean table is 0 or 1 above the sum: rounding)
    assert att.formula == "RRC_ConnEstabFail + RRC_ConnEstabSucc" and att.noise.kind == "none"
