"""Acceptance on the public AgentFuel tables: roles, keys (incl. the composite link key), relations
(incl. the composite cell -> link one), cadence, and a fidelity table within the README thresholds."""

from __future__ import annotations

import pytest

from tools.common.dwell import dwell_mean_seconds
from tools.infer import infer
from tools.infer.fidelity import entity_for_table
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
    sm = entity_for_table(result.spec, "ecommerce_sessions_data").states
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
    assert entity_for_table(result.spec, f"core_node{variant}").count == 16
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
    e = entity_for_table(result.spec, f"cell_site{variant}")
    dists = {a.name: a.dist.kind for a in e.attributes}
    assert dists["Transport_Device_ID"] == "foreign_key" and dists["Transport_Interface_ID"] == "parent_attribute"
    util = next(m for m in e.measurements if m.name == "DL_PRB_Utilization")
    # the daily profile is fitted with harmonics down to 3 h and the part common to every cell at the same
    # time is not noise: the noise left is weakly autocorrelated within a cell (lag-1 about 0.2 in the data)
    assert util.noise.kind == "ar" and 0.1 < util.noise.phi[0] < 0.4
    assert len(util.seasonality) >= 3
    assert util.seasonality and util.seasonality[0].period == "1d" and util.seasonality[0].peak.startswith("14h")


SHAPE = ("tail share", "lag-1", "sd of entity means", "correlation")


def test_fidelity_table_within_thresholds(ecommerce, telecom):
    variant = telecom[1]
    for result, report in (ecommerce, telecom[0]):
        assert result.fidelity, "the fidelity table is computed"
        rows = result.fidelity
        if variant == "_with_inc_data" and result is telecom[0][0]:
            # sustained incidents are a hidden normal <-> incident regime: the cells' availability keeps its
            # tail, lag-1 (0.90) and entity spread, packet loss and jitter move together again (r 0.43); the
            # links' lag-1 (0.55 / 0.50) rests on one incident of one of 6 interfaces, so the regenerated
            # side stacks 200 regenerations (one has no incident about a third of the time)
            cells = [r for r in rows if r.table.startswith("cell_site") and r.metric.startswith(SHAPE)]
            assert len(cells) >= 20 and all(r.ok for r in cells)
            pair = next(r for r in rows if r.column == "Packet_Loss_Percent~Jitter_ms")
            assert pair.ok and float(pair.detail.split()[0]) > 0.4
            lags = [r for r in rows if r.table.startswith("transport_link") and r.metric.startswith("lag-1")]
            assert len(lags) == 4 and all("regenerated x200" in r.detail for r in lags)
        bad = [(r.table, r.column, r.metric, round(r.value, 3), r.threshold) for r in rows if not r.ok]
        assert not bad
        assert "## Fidelity" in report and "| cadence |" in report


def test_written_spec_round_trips_with_provenance_comments(ecommerce, telecom):
    for result, _ in (ecommerce, telecom[0]):
        assert parse_spec_text(result.yaml_text) == result.spec
        text = result.yaml_text
        assert text.count("# fitted from ") == len(result.spec.entities)
        assert "rows" in text and "# relation " in text
        for p in result.profiles:
            for m in entity_for_table(result.spec, p.name).measurements:
                assert f"# {p.name}.{m.name} (" in text


def test_count_identities_become_formulas(telecom):
    (result, _), variant = telecom
    att = next(m for m in entity_for_table(result.spec, f"cell_site{variant}").measurements if m.name == "RRC_ConnEstabAtt")
    # Att = Succ + Fail on every row (the clean table is 0 or 1 above the sum: rounding)
    assert att.formula == "RRC_ConnEstabFail + RRC_ConnEstabSucc" and att.noise.kind == "none"


def _rows(result, prefix: str):
    return [r for r in result.fidelity if r.metric.startswith(prefix)]


def test_structure_kept_routers_interfaces_and_cells_per_link(telecom):
    (result, _), variant = telecom
    assert [e.name for e in result.spec.entities] == ["device_interface", "core_node", "cell"]  # from id columns
    link = entity_for_table(result.spec, f"transport_link{variant}")
    assert len(link.id.values) == 6 and len(set(link.id.values)) == 4  # 4 routers carry the 6 interfaces
    assert [r.value for r in _rows(result, "distinct ids ratio")] == [0.0]  # regenerated: 4 routers again
    from tools.infer.fidelity import regenerate
    from tools.infer.skew import children_per_parent

    regen = regenerate(result.spec, seed=8)
    cells = regen[f"cell_site{variant}"].drop_duplicates("Cell_ID")
    pairs = set(map(tuple, regen[f"transport_link{variant}"][["Device_ID", "Interface_ID"]].drop_duplicates()
                    .astype(str).to_numpy()))
    assert set(map(tuple, cells[["Transport_Device_ID", "Transport_Interface_ID"]].astype(str).to_numpy())) <= pairs
    counts = children_per_parent(regen[f"cell_site{variant}"], ["Cell_ID"], ["Transport_Device_ID", "Transport_Interface_ID"],
                                 regen[f"transport_link{variant}"], ["Device_ID", "Interface_ID"])
    sample = children_per_parent(_profile(result, f"cell_site{variant}").table.frame, ["Cell_ID"],
                                 ["Transport_Device_ID", "Transport_Interface_ID"],
                                 _profile(result, f"transport_link{variant}").table.frame, ["Device_ID", "Interface_ID"])
    assert counts.size == 6 and sorted(counts) == sorted(sample)  # cells per link: the same as the sample


def test_tails_and_lag1_within_acceptance_on_the_clean_tables(telecom):
    (result, _), variant = telecom
    if variant != "_data":
        return  # the incident tables are checked in test_fidelity_table_within_thresholds
    tails, lags = _rows(result, "tail share"), _rows(result, "lag-1")
    assert len(tails) == 13 and len(lags) == 13
    assert all(r.value <= 0.3 for r in tails) and all(r.value <= 0.05 for r in lags)
    heavy = [r for r in tails if r.column in ("Packet_Loss_Percent", "Jitter_ms")]
    assert all(r.value <= 0.3 for r in heavy)  # the link tables' heavy tails (1.8-3.3% beyond 4 sigma) come back


def test_sessions_groups_and_questions_on_ecommerce(ecommerce):
    result, report = ecommerce
    lengths = _rows(result, "KS rows per entity") + _rows(result, "KS duration per entity")
    assert len(lengths) == 2 and all(r.value <= 0.1 for r in lengths)
    groups = _rows(result, "group transition L1")
    assert {r.column for r in groups} == {f"referrer={x}" for x in ("direct", "email", "search", "social")}
    # compared with a 10x regenerated population (its own sampling noise would be L1 ~0.05 at 500 sessions)
    assert all(r.value <= 0.05 for r in groups), [(r.column, round(r.value, 3)) for r in groups]
    assert all("regenerated" in r.detail and int(r.detail.split(", ")[1].split()[0]) > 5 * int(r.detail.split()[0])
               for r in groups)
    questions = _rows(result, "question")
    assert len(questions) >= 2 and all(r.value <= 0.1 for r in questions)
    assert "state_occupancy(page)" in report


def test_question_level_fidelity_on_telecom(telecom):
    (result, _), _variant = telecom
    questions = _rows(result, "question")
    assert len(questions) == 9 and all(r.value <= 0.1 for r in questions), [(r.column, r.value) for r in questions]


def test_incidents_are_a_hidden_regime_only_where_the_data_has_them(telecom):
    (result, _), variant = telecom
    cell = entity_for_table(result.spec, f"cell_site{variant}")
    link = entity_for_table(result.spec, f"transport_link{variant}")
    if variant == "_data":  # isolated spikes only: no regime
        assert cell.states is None and link.states is None
        return
    for e in (cell, link):
        assert e.states is not None and e.states.column is None and not e.states.derived_columns  # never written
        assert set(e.states.states) == {"normal", "incident"}
    avail = next(m for m in cell.measurements if m.name == "Cell_Availability")
    assert avail.states["incident"].shift < -1  # availability lost during an incident
    # the link table has one injected incident (25 rows of RTR_001 eth0); far rows of different
    # measurements or on opposite sides that fall close together (they are in the clean table too) are
    # spikes, not two more 3-row incidents that would make the incident 10 rows long and its shifts small
    assert ": 1 sustained excursions of Packet_Loss_Percent" in result.yaml_text
    assert dwell_mean_seconds(link.states.states["incident"].dwell) == 25 * 900
    loss = next(m for m in link.measurements if m.name == "Packet_Loss_Percent")
    assert loss.states["incident"].shift == pytest.approx(1.128, abs=0.05)  # incident mean - normal mean
    assert link.states.initial["incident"] == pytest.approx(25 / 1158, abs=1e-3)  # a window on a running process
    assert "hidden incident state" in result.yaml_text
