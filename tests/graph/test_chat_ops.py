"""Typed chat operations on the walkthrough bundle (issue 30): every operation applied then undone gives
back the original bytes, and redone the applied bytes; a world change keeps the suite's size, the seed
and the user's persona with its variants; `chat --ops FILE` previews, `--yes` applies."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from agents.chat_apply import apply_ops
from graph.cli import app
from tests.graph.test_chat_history import _bytes
from tools.bundle.history import redo, undo
from tools.chat.ops import parse_operations
from tools.queries.refresh import read_qa

EVERY_OPERATION = [
    {"op": "add_incident", "kind": "data_outage", "entity": "cell_tower", "count": 5, "start": "day 2 10:00",
     "duration": "2h"},
    {"op": "edit_incident", "incident": "cell_tower_outage", "duration_by": "x2"},
    {"op": "move_incident", "incident": "cell_tower_outage", "shift": "+2h"},
    {"op": "remove_incident", "incident": "throughput_flatline"},
    {"op": "add_persona", "description": "a field technician who climbs the towers", "style": "terse"},
    {"op": "scale_entities", "entity": "cell_tower", "count": 24},
    {"op": "set_horizon", "horizon": "3d"},
    {"op": "set_cadence", "cadence": "30m"},
    {"op": "add_questions", "family": "stateful", "count": 2},
    {"op": "drop_questions", "family": "stateless"},
    {"op": "make_harder"},
]


@pytest.mark.slow
def test_every_operation_round_trips_through_undo_and_redo(walkthrough_bundle, tmp_path):
    b = tmp_path / "towers"
    shutil.copytree(walkthrough_bundle, b)
    # personas to edit and remove exist only after one is added: that is the first version kept
    apply_ops(b, parse_operations([{"op": "add_persona", "description": "a NOC analyst", "name": "noc_analyst"}]))
    ops = EVERY_OPERATION + [{"op": "edit_persona", "persona": "noc_analyst", "style": "formal, full sentences"},
                             {"op": "remove_persona", "persona": "noc_analyst"}]
    for op in ops:
        before = _bytes(b)
        apply_ops(b, parse_operations([op]))
        after = _bytes(b)
        assert after != before, op
        undo(b)
        assert _bytes(b) == before, f"undo of {op['op']} did not restore the bytes"
        redo(b)
        assert _bytes(b) == after, f"redo of {op['op']} did not restore the applied bytes"
        undo(b)


@pytest.mark.slow
def test_a_world_change_keeps_suite_size_seed_and_the_users_persona(walkthrough_bundle, tmp_path):
    b = tmp_path / "towers"
    shutil.copytree(walkthrough_bundle, b)
    apply_ops(b, parse_operations([{"op": "add_persona", "description": "a field technician who climbs towers"}]))
    canon = [x for x in read_qa(b) if not x.get("variant_of")]
    apply_ops(b, parse_operations([{"op": "scale_entities", "entity": "cell_tower", "count": 30}]))
    after = read_qa(b)
    assert len([x for x in after if not x.get("variant_of")]) == len(canon) == 12
    assert sum(x.get("persona") == "field_technician" for x in after) >= 6  # the user's persona voices the new suite
    assert json.loads((b / "manifest.json").read_text())["seed"] == 0


def test_ops_file_previews_without_changing_and_applies_with_yes(walkthrough_bundle, tmp_path):
    b = tmp_path / "towers"
    shutil.copytree(walkthrough_bundle, b)
    original = _bytes(b)
    f = tmp_path / "ops.json"
    f.write_text(json.dumps([{"op": "drop_questions", "family": "stateless"}]))
    r = CliRunner().invoke(app, ["chat", str(b), "--ops", str(f)])
    assert r.exit_code == 0 and "drop the stateless questions" in r.output and "--yes" in r.output, r.output
    assert _bytes(b) == original
    r = CliRunner().invoke(app, ["chat", str(b), "--ops", str(f), "--yes"])
    assert r.exit_code == 0 and "version 1" in r.output, r.output
    assert not any(x["family"] == "stateless" for x in read_qa(b))
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {op: add_incident, kind: data_outage, count: -3}\n")
    r = CliRunner().invoke(app, ["chat", str(b), "--ops", str(bad)])
    assert r.exit_code == 2 and "item 0.add_incident.count" in " ".join(r.output.split()), r.output


@pytest.mark.slow
def test_the_issue_30_scripted_chat_ends_exactly_as_asked(walkthrough_bundle, tmp_path):
    """add a persona, add an outage on day 2 for 2 hours affecting 5 towers, make it longer, undo, make it 20
    towers: each change previewed and confirmed; the end has the persona's variants, the suite's size and
    the outage exactly as asked."""
    from graph.chat import ChatContext
    from tests.graph.test_chat import _say_with
    from tools.spec.io import load_spec

    b = tmp_path / "towers"
    shutil.copytree(walkthrough_bundle, b)
    size = len([x for x in read_qa(b) if not x.get("variant_of")])
    turns = _say_with(b, ChatContext(), "add a persona: a field technician who writes short practical questions",
                      "ok", "add an outage on day 2 for 2 hours affecting 5 towers", "ok", "make it longer", "ok",
                      "undo", "make it 20 towers", "ok")
    ops = [t["op"] for t in turns]
    assert ops == ["preview", "add_persona", "preview", "add_incident", "preview", "edit_incident", "undo",
                   "preview", "scale_entities"], [(t["request"], t["op"], t["lines"][:2]) for t in turns]
    assert any("I assumed: you did not say how much longer" in x for x in turns[4]["lines"])
    assert turns[6]["lines"][0].startswith("undid version 3 (changed 'chat_data_outage_1': duration 2h → 4h)")
    spec = load_spec(b / "spec.yaml")
    added = [i for i in spec.incidents if i.id.startswith("chat_")]
    assert len(added) == 1 and added[0].kind == "data_outage" and added[0].target.random == 5
    assert added[0].window.start.startswith("day 2 ") and added[0].window.duration == "2h"
    assert spec.entities[0].count == 20 and [p.name for p in spec.personas] == ["field_technician"]
    qa = read_qa(b)
    assert len([x for x in qa if not x.get("variant_of")]) == size
    canon = {x["id"] for x in qa if not x.get("variant_of")}
    voiced = {x["variant_of"] for x in qa if x.get("persona") == "field_technician"}
    assert len(voiced) >= size // 2 and voiced <= canon  # the user's persona voices the suite after the rebuild


def test_an_operation_the_bundle_cannot_take_exits_2_and_changes_nothing(walkthrough_bundle, tmp_path):
    b = tmp_path / "towers"
    shutil.copytree(walkthrough_bundle, b)
    original = _bytes(b)
    f = tmp_path / "ops.json"
    f.write_text(json.dumps([{"op": "remove_incident", "incident": "no_such_incident"}]))
    r = CliRunner().invoke(app, ["chat", str(b), "--ops", str(f), "--yes"])
    assert r.exit_code == 2 and "no incident is called 'no_such_incident'; incidents: cell_tower_outage" in \
        " ".join(r.output.split()), r.output
    assert _bytes(b) == original and "Traceback" not in r.output
