"""A failing incident never stays silently: after the allowed adjustments it is removed from the spec
(and the data regenerated without it), and the decision log says so."""

from __future__ import annotations

import json
from types import SimpleNamespace

from agents.context import BuildContext
from agents.pattern_injector import pattern_injector
from tools.spec import dump_spec, parse_spec_text

SPEC = """
name: pumps
seed: 2
horizon: 3d
entities:
  - name: pump
    table: pump_metrics
    id: {column: pump_id, format: "PUMP_{i:02d}"}
    count: 10
    emission: {kind: periodic, cadence: 15m}
    measurements:
      - {name: pressure, base: 5, noise: {kind: ar, phi: [0.6], sigma: 0.3}, bounds: [0, 20], decimals: 2}
incidents:
  - kind: level_shift
    id: invisible_shift
    target: {entity: pump, random: 2}
    window: {start: "day 2 06:00", duration: 4h}
    effects: {pressure: "0.1sigma"}
  - kind: data_outage
    id: pump_outage
    target: {entity: pump, random: 2}
    window: {start: "day 1 12:00", duration: 2h}
"""


def test_an_incident_still_failing_after_the_adjustments_is_removed(tmp_path):
    spec_yaml = dump_spec(parse_spec_text(SPEC, "spec.yaml"))
    state = {"spec_yaml": spec_yaml, "out": str(tmp_path / "b"), "stale": []}
    runtime = SimpleNamespace(context=BuildContext(max_injection_retries=0))
    res = pattern_injector(state, runtime)
    assert not res.get("error") and res["bundle_ready"] and not res["checks_failed"]
    kept = [i.id for i in parse_spec_text(res["spec_yaml"], "spec.yaml").incidents]
    assert kept == ["pump_outage"]
    on_disk = [i["id"] for i in json.loads((tmp_path / "b" / "incidents.json").read_text())["incidents"]]
    assert on_disk == ["pump_outage"]  # the data was regenerated without it
    assert any("invisible_shift: removed" in d["decision"] for d in res["decisions"])


def test_an_incident_the_user_described_is_never_strengthened_or_moved(tmp_path):
    """Issue 29: the injector strengthens or moves a default incident whose check fails, but an incident stated in
    the user's own words comes out as stated or not at all, and the console says which (not_understood)."""
    told = "A pressure shift of a tenth of a sigma on 2 pumps on day 2 at 06:00 for 4 hours."
    spec_yaml = dump_spec(parse_spec_text(SPEC.replace("name: pumps", f"name: pumps\ndescription: '10 pumps. {told}'")
                                          .replace("id: invisible_shift", f"id: invisible_shift\n    description: '{told}'"),
                                          "spec.yaml"))
    state = {"spec_yaml": spec_yaml, "out": str(tmp_path / "b"), "stale": [], "not_understood": ["earlier note"]}
    res = pattern_injector(state, SimpleNamespace(context=BuildContext(max_injection_retries=2)))
    assert [i.id for i in parse_spec_text(res["spec_yaml"], "spec.yaml").incidents] == ["pump_outage"]
    assert not any("strengthened" in d["decision"] for d in res["decisions"])  # removed, never made bigger
    assert res["not_understood"][0] == "earlier note"
    assert "the incident you described" in res["not_understood"][1] and told[:30] in res["not_understood"][1]
    default = dump_spec(parse_spec_text(SPEC, "spec.yaml"))  # the same incident as a default is strengthened
    res = pattern_injector({"spec_yaml": default, "out": str(tmp_path / "c"), "stale": []},
                           SimpleNamespace(context=BuildContext(max_injection_retries=1)))
    assert any("strengthened" in d["decision"] for d in res["decisions"]) and "not_understood" not in res
