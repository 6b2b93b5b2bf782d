"""Composite entity keys in the checks and the incident manifest (issue 19/20): a transport link is
Device_ID + Interface_ID (a router carries several links). The per-entity checks (duplicates, monotonic
timestamps, cadence) key on both columns, incidents.json names an affected link ``RTR_001/eth2`` (with
``key_parts``), and the pattern checks prove the incident on that link, not on its router."""

from __future__ import annotations

import json

import pytest

from tests.tools.checks._helpers import (
    by_key,
    copy_bundle,
    edit_incidents,
    execute,
    make_bundle,
    pattern_results,
)
from tools.checks import run_checks

LINKS = """
name: links
seed: 3
start: "2026-01-01T00:00:00Z"
horizon: 2d
entities:
  - name: link
    table: transport_link
    id: {column: Device_ID, format: "RTR_{i:03d}", values: [RTR_001, RTR_001, RTR_002, RTR_003, RTR_004, RTR_004]}
    count: 6
    attributes:
      - name: Interface_ID
        dist: {kind: listed, values: [eth0, eth2, eth3, eth1, eth1, eth3]}
    emission: {kind: periodic, cadence: 15m, timestamp_column: Timestamp}
    measurements:
      - name: Packet_Loss_Percent
        base: 0.5
        noise: {kind: iid, sigma: 0.05}
        bounds: [0, 100]
        decimals: 3
      - name: Latency_ms
        base: 18
        noise: {kind: iid, sigma: 0.6}
        bounds: [0, null]
        decimals: 2
incidents:
  - kind: kpi_degradation
    id: eth2_loss
    target: {entity: link, ids: ["RTR_001/eth2"]}
    window: {start: "day 1 06:00", duration: 4h}
    effects: {Packet_Loss_Percent: "+3", Latency_ms: "+40%"}
  - kind: data_outage
    id: rtr4_gap
    target: {entity: link, ids: ["RTR_004/eth3"]}
    window: {start: "day 2 02:00", duration: 2h}
"""
SEQ = ("duplicate_keys", "timestamps_monotonic", "cadence")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return make_bundle(tmp_path_factory.mktemp("links") / "b", LINKS)


def test_sequence_checks_key_on_every_key_column(bundle):
    """Two links of one router share Device_ID at every timestamp: keyed on Device_ID alone the three
    checks fail (386 'duplicates' on the inferred link spec); keyed on the link they pass."""
    got = by_key(run_checks(bundle))
    for name in SEQ:
        assert got[(name, "transport_link", None)].passed, got[(name, "transport_link", None)].detail
    assert "Device_ID/Interface_ID" in got[("duplicate_keys", "transport_link", None)].detail


def test_a_real_duplicate_of_one_link_is_still_found(bundle, tmp_path):
    b = copy_bundle(bundle, tmp_path / "dup")
    execute(b, "INSERT INTO transport_link SELECT * FROM transport_link WHERE Device_ID = 'RTR_001' "
               "AND Interface_ID = 'eth2' AND Timestamp = TIMESTAMPTZ '2026-01-01 12:00:00+00'")
    dup = by_key(run_checks(b))[("duplicate_keys", "transport_link", None)]
    assert not dup.passed and dup.detail.startswith("1 duplicated keys") and "RTR_001/eth2" in dup.detail


def test_the_manifest_names_the_link(bundle):
    incs = {r["id"]: r for r in json.loads((bundle / "incidents.json").read_text())["incidents"]}
    for iid, link in (("eth2_loss", "RTR_001/eth2"), ("rtr4_gap", "RTR_004/eth3")):
        r = incs[iid]
        assert r["id_column"] == "Device_ID" and r["key_parts"] == ["Interface_ID"]
        assert r["entities"] == r["targets"] == [link]


def test_pattern_checks_prove_the_incident_on_its_link(bundle, tmp_path):
    got = pattern_results(bundle)
    for iid in ("eth2_loss", "rtr4_gap"):
        assert got[(iid, "detectable")].passed and got[(iid, "localized")].passed, got[(iid, "detectable")].detail
    assert "0/5 unaffected entities" in got[("eth2_loss", "localized")].detail  # RTR_001/eth0 is one of them
    # the same router's other link was not degraded: a manifest naming it fails the detectability check
    wrong = copy_bundle(bundle, tmp_path / "wrong")
    edit_incidents(wrong, lambda incs: [r.update(entities=["RTR_001/eth0"], targets=["RTR_001/eth0"])
                                        for r in incs if r["id"] == "eth2_loss"])
    assert not pattern_results(wrong, {"eth2_loss"})[("eth2_loss", "detectable")].passed


def test_a_bare_router_id_targets_all_its_links(tmp_path):
    spec = LINKS.replace('ids: ["RTR_001/eth2"]', "ids: [RTR_001]")
    b = make_bundle(tmp_path / "b", spec)
    rec = next(r for r in json.loads((b / "incidents.json").read_text())["incidents"] if r["id"] == "eth2_loss")
    assert rec["entities"] == ["RTR_001/eth0", "RTR_001/eth2"]


def test_inferred_link_spec_passes_its_checks(tmp_path):
    """The spec `chronoeval infer` fits on the public link table (repeated router ids + listed interfaces)."""
    from tests.reference_data import reference_dir
    from tools.infer import infer

    result, _ = infer([reference_dir() / "transport_link_data.csv"], fidelity=False)
    b = make_bundle(tmp_path / "b", result.spec)
    got = by_key(run_checks(b))
    for name in SEQ:
        assert got[(name, "transport_link_data", None)].passed, got[(name, "transport_link_data", None)].detail
