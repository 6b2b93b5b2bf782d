"""Built-in packs (incidents stripped, scale 0.3) generated, then inferred: the pack's keys, relations,
cadence, dimension tables, skewed keys, trajectory flags and label effects come back, and the
regenerated data passes the fidelity thresholds."""

from __future__ import annotations

import pytest

from knowledge.packs import load_pack
from tools.generate import generate_bundle
from tools.infer import infer
from tools.infer.fidelity import entity_for_table


@pytest.fixture(scope="module", params=["ecommerce", "telecom", "iot"])
def pack(request, tmp_path_factory):
    spec = load_pack(request.param).model_copy(update={"incidents": []})
    out = tmp_path_factory.mktemp(request.param) / "bundle"
    generate_bundle(spec, out, scale=0.3)
    files = [out / "data" / f"{t}.parquet" for e in spec.entities for t in e.table_names]
    result, _ = infer(files, seed=2)
    return request.param, spec, result


def _id_table(e) -> str:
    """The table that lists an entity type's ids: its static table, else its event/metric table."""
    return e.static_table_name or e.table_name


def test_keys_relations_and_cadence_come_back(pack):
    name, known, result = pack
    for e in known.entities:
        fitted = next(f for f in result.spec.entities if e.table_name in f.table_names)
        assert fitted.id.column == e.id.column and fitted.id.format == e.id.format
        assert fitted.static_table == e.static_table and fitted.table_name == e.table_name
        assert (fitted.emission is None) == (e.emission is None)
        if e.emission:
            assert fitted.emission.kind == e.emission.kind and fitted.emission.cadence == e.emission.cadence
    expected = {f"{e.table_name}.{a.name} -> {_id_table(known.entity(a.dist.entity))}."
                f"{known.entity(a.dist.entity).id.column}"
                for e in known.entities for a in e.attributes if a.dist.kind == "foreign_key" and a.in_rows}
    assert {str(r) for r in result.relations} == expected


def test_pack_specific_structure(pack):
    name, known, result = pack
    if name == "ecommerce":
        sessions = entity_for_table(result.spec, "sessions")
        assert sessions.states.flags["did_purchase"].ever_in == ["purchase_complete"]
        user_fk = next(a for a in sessions.attributes if a.name == "user_id").dist
        assert user_fk.weight_by == "sessions_weight"  # visit_propensity skews sessions per user
        assert sessions.arrival.hourly_weights and len(sessions.arrival.hourly_weights) == 24
        # transition overrides: the referrer (own attribute) and the user's plan (parent attribute, copied)
        over = {(o.when[0].attribute, o.when[0].equals): o.transitions for o in sessions.states.overrides}
        pack_rows = {(o.when[0].attribute, o.when[0].equals): o.transitions
                     for o in known.entity("session").states.overrides}
        for label in ("email", "social"):
            got, want = over[("referrer", label)]["homepage"], pack_rows[("referrer", label)]["homepage"]
            names = {"exit_leave": "exit_leave", "search_browse": "search_browse", "product_view_product": "product_view"}
            for fitted_state, p in got.items():
                assert p == pytest.approx(want[names[fitted_state]], abs=0.06), (label, fitted_state)
        plan = next(a for a in sessions.attributes if a.name == "subscription_type").dist
        assert (plan.kind, plan.via) == ("parent_attribute", "user_id")
        cart = {k[1]: v["cart_add_to_cart"] for k, v in over.items() if k[0] == "subscription_type"}
        assert cart["premium"]["checkout_checkout"] > cart["free"]["checkout_checkout"] + 0.1
    if name == "iot":
        sensors = entity_for_table(result.spec, "sensors")
        assert sensors.static_table == "sensors" and sensors.table == "readings"
        assert {a.name for a in sensors.attributes if a.emit == "static"} >= {"zone", "firmware", "model"}
        temp = next(m for m in sensors.measurements if m.name == "temperature_c")
        zone = next(a for a in temp.attribute_effects if a.attribute == "zone").values
        assert zone["cold_storage"] < zone["warehouse"] < zone["production_floor"]
    if name == "telecom":
        util = next(m for m in entity_for_table(result.spec, "cell_site").measurements if m.name == "DL_PRB_Utilization")
        assert util.noise.kind == "ar" and util.seasonality[0].peak.startswith("14h")


SHAPE = ("tail share", "lag-1", "sd of entity means", "correlation")


def test_fidelity_passes(pack):
    name, _, result = pack
    rows = result.fidelity
    if name in ("telecom", "iot"):
        # these packs have hidden degraded spells (telecom: no state column on links and cells) and a few
        # exemplar entities (iot: battery drainers) that inference does not model: the tail, lag-1, spread
        # and correlation rows of the extended report may show it (a spell moves several measurements
        # together); every other check must pass
        rows = [r for r in rows if not r.metric.startswith(SHAPE)]
    bad = [(r.table, r.column, r.metric, round(r.value, 3), r.threshold) for r in rows if not r.ok]
    assert result.fidelity and not bad
    assert any(r.metric.startswith("question") for r in rows)
