"""Chat's versions (issue 30): every applied change is a version; `undo` in chat and `chronoeval undo`
give back the exact bytes before it (manifest equal), `redo` the bytes after it, `history` lists them."""

from __future__ import annotations

import shutil

from typer.testing import CliRunner

from graph.cli import app
from tests.graph.test_chat import _say


def _bytes(b):
    return {p.relative_to(b).as_posix(): p.read_bytes() for p in sorted(b.rglob("*"))
            if p.is_file() and not p.relative_to(b).as_posix().startswith("history/") and p.name != ".verify-cache.json"}


def test_undo_and_redo_in_chat_restore_exact_bytes_across_a_data_change_and_a_persona(pack_suites, tmp_path):
    b = tmp_path / "iot"
    shutil.copytree(pack_suites["iot"], b)
    original = _bytes(b)
    turns = _say(b, "add an outage on day 2 at 10:00 for 2 hours")
    assert "(version 1; `undo` takes it back)" in turns[-1]["lines"], turns[-1]
    after_outage = _bytes(b)
    assert after_outage["manifest.json"] != original["manifest.json"]
    turns = _say(b, "show the questions", "undo")
    assert turns[-1]["lines"][0].startswith("undid version 1 (added data outage"), turns[-1]
    assert _bytes(b) == original
    turns = _say(b, "redo", "history")
    assert _bytes(b) == after_outage
    assert turns[-1]["lines"][0] == "1 version(s) applied" and turns[-1]["lines"][1].startswith("v1: added data outage")
    _say(b, "undo")
    assert _bytes(b) == original
    assert _say(b, "undo")[-1]["lines"][0] == f"could not undo: nothing to undo in {b}"


def test_the_commands_undo_redo_and_history(pack_suites, tmp_path):
    b = tmp_path / "iot"
    shutil.copytree(pack_suites["iot"], b)
    original = _bytes(b)
    _say(b, "drop the stateless questions")
    dropped = _bytes(b)
    runner = CliRunner()
    r = runner.invoke(app, ["history", str(b)])
    assert r.exit_code == 0 and "v1: dropped" in r.output, r.output
    r = runner.invoke(app, ["undo", str(b)])
    assert r.exit_code == 0 and "undid version 1" in r.output and _bytes(b) == original, r.output
    r = runner.invoke(app, ["undo", str(b)])
    assert r.exit_code == 2 and "nothing to undo" in r.output, r.output
    r = runner.invoke(app, ["redo", str(b)])
    assert r.exit_code == 0 and _bytes(b) == dropped, r.output
    assert runner.invoke(app, ["verify", str(b)]).exit_code == 0
