"""What each typed chat operation does to a spec: only the stated fields change, defaults are said,
a count is an incident's count (never the fleet's), and an impossible change names what would work."""

from __future__ import annotations

import copy

import pytest
import yaml

from tests.tools.chat.chat_corpus import DIR
from tools.chat import spec_edits
from tools.chat.ops import parse_operations
from tools.describe.apply import RefineError
from tools.spec.io import parse_spec_text

SPEC = yaml.safe_load((DIR / "towers_spec.yaml").read_text())


def _edit(op: dict, spec: dict | None = None) -> tuple[dict, str]:
    spec = copy.deepcopy(spec or SPEC)
    (parsed,) = parse_operations([op])
    name = parsed.op
    fn = getattr(spec_edits, name)
    said = fn(spec, parsed, 2) if name in ("add_incident", "cascade_incident") else fn(spec, parsed)
    parse_spec_text(yaml.safe_dump(spec), "spec.yaml")  # the result is a valid spec
    return spec, said


def test_an_incident_on_five_towers_keeps_twenty_towers_and_the_stated_window():
    spec, said = _edit({"op": "add_incident", "kind": "data_outage", "entity": "cell_tower", "count": 5,
                        "start": "day 2 10:00", "duration": "2h"})
    inc = spec["incidents"][-1]
    assert spec["entities"][0]["count"] == 20
    assert inc["target"] == {"entity": "cell_tower", "random": 5}
    assert inc["window"] == {"start": "day 2 10:00", "duration": "2h"}
    assert "5 random cell_tower entities, from day 2 10:00 for 2h" in said


def test_a_sized_spike_on_named_towers_moves_the_named_measurement():
    spec, said = _edit({"op": "add_incident", "kind": "spike", "measurement": "dropped_call_rate",
                        "ids": ["SITE_0004"], "magnitude": "x3"})
    inc = spec["incidents"][-1]
    assert inc["effects"] == {"dropped_call_rate": "+200%"} and inc["target"]["ids"] == ["SITE_0004"]
    assert "from day 2 10:00 for 2h" in said  # the unstated window is said, so the preview shows it


def test_a_filter_by_attribute_value_and_too_many_targets():
    spec, _ = _edit({"op": "add_incident", "kind": "dip", "measurement": "throughput",
                     "where": {"radio_area_type": "rural"}})
    assert spec["incidents"][-1]["target"]["where"] == [{"attribute": "radio_area_type", "equals": "rural"}]
    with pytest.raises(RefineError, match="only 20 cell_tower"):
        _edit({"op": "add_incident", "kind": "data_outage", "count": 25})


@pytest.mark.parametrize("op, duration", [({"duration_by": "x2"}, "4h"), ({"duration_by": "+90m"}, "210m"),
                                          ({"duration": "45m"}, "45m")])
def test_longer_and_shorter_incidents(op, duration):
    spec, said = _edit({"op": "edit_incident", "incident": "cell_tower_outage", **op})
    assert spec["incidents"][0]["window"]["duration"] == duration and f"2h → {duration}" in said


def test_a_move_by_a_shift_and_to_a_start_and_one_before_the_data_is_refused():
    spec, said = _edit({"op": "move_incident", "incident": "throughput_flatline", "shift": "-1d"})
    assert spec["incidents"][1]["window"]["start"] == "day 1 06:00" and "day 2 06:00 to day 1 06:00" in said
    spec, _ = _edit({"op": "move_incident", "incident": "cell_tower_outage", "start": "day 2 09:30"})
    assert spec["incidents"][0]["window"]["start"] == "day 2 09:30"
    with pytest.raises(RefineError, match="before the data begins"):
        _edit({"op": "move_incident", "incident": "cell_tower_outage", "shift": "-2d"})


def test_a_kind_change_keeps_id_targets_and_window():
    spec, said = _edit({"op": "edit_incident", "incident": "throughput_flatline", "kind": "spike", "magnitude": "+80%"})
    inc = spec["incidents"][1]
    assert inc["kind"] == "spike" and inc["id"] == "throughput_flatline" and inc["effects"] == {"throughput": "+80%"}
    assert inc["window"] == SPEC["incidents"][1]["window"] and "flatline → spike" in said


def test_remove_scale_horizon_cadence_and_personas():
    spec, _ = _edit({"op": "remove_incident", "incident": "chat_data_outage_1"})
    assert [i["id"] for i in spec["incidents"]] == ["cell_tower_outage", "throughput_flatline"]
    assert _edit({"op": "scale_entities", "entity": "cell_tower", "factor": 2})[0]["entities"][0]["count"] == 40
    assert _edit({"op": "set_horizon", "horizon": "3d"})[0]["horizon"] == "3d"
    assert _edit({"op": "set_cadence", "cadence": "5m"})[0]["entities"][0]["emission"]["cadence"] == "5m"
    spec, _ = _edit({"op": "edit_persona", "persona": "field_technician", "style": "formal"})
    assert spec["personas"][0]["style"] == "formal" and spec["personas"][0]["description"].startswith("a field")
    assert _edit({"op": "remove_persona", "persona": "field_technician"})[0]["personas"] == []
    with pytest.raises(RefineError, match="no incident is called 'nope'; incidents: cell_tower_outage"):
        _edit({"op": "remove_incident", "incident": "nope"})


def test_magnitudes_read_as_effects():
    assert [spec_edits.relative_magnitude(x) for x in ("x2", "x0.5", "to 0", "-40%", "8", "+3sigma")] == \
        ["+100%", "-50%", "-100%", "-40%", "+8", "+3sigma"]
    with pytest.raises(RefineError, match="cannot size an incident by 'a lot'"):
        spec_edits.relative_magnitude("a lot")
