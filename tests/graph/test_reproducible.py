"""Issue 17 acceptance: same inputs give the same suite, and all state stays in one home.

A fresh HOME (CHRONOEVAL_HOME left at its default inside it): build → eval naive (which writes
experience notes) → build again with the same seed gives a byte-identical qa.jsonl, and no file is
written outside $HOME/.local/share/chronoeval and the output directories. The notes used by a
--use-notes build are identified by ids and a digest that the same notes always give."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.query_synthesizer import notes_used
from knowledge.documents import ExperienceNote
from knowledge.embed import HashEmbedder
from knowledge.memory import Memory

ROOT = Path(__file__).resolve().parents[2]
DESCRIPTION = "12 pumps reporting pressure and flow every 15 minutes over 2 days"


def _cli(args, env, cwd):
    return subprocess.run([sys.executable, "-m", "graph.cli", *map(str, args)], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=600)


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_build_eval_build_gives_the_same_suite_and_writes_only_in_home_and_outputs(tmp_path):
    home, work, tmp = tmp_path / "home", tmp_path / "work", tmp_path / "tmp"
    for d in (home, work, tmp):
        d.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CHRONOEVAL_", "OPENAI_", "XDG_", "MPLCONFIGDIR"))}
    env.update({"HOME": str(home), "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT), "CHRONOEVAL_MODEL": "none",
                "CHRONOEVAL_EMBEDDINGS": "hash", "COLUMNS": "160"})
    before = _tree(home)

    first = _cli(["build", DESCRIPTION, "-o", "first", "--yes", "--n", "10", "--seed", "3"], env, work)
    assert first.returncode == 0, first.stderr
    naive = _cli(["eval", "first", "--agent", "naive", "--trials", "1", "-o", "runs/naive"], env, work)
    assert naive.returncode == 0, naive.stderr
    assert "recorded" in naive.stderr and "--use-notes" in naive.stderr  # the notes exist ...
    again = _cli(["build", DESCRIPTION, "-o", "again", "--yes", "--n", "10", "--seed", "3"], env, work)
    assert again.returncode == 0, again.stderr
    # ... and do not change a build that did not ask for them
    assert (work / "again" / "qa.jsonl").read_bytes() == (work / "first" / "qa.jsonl").read_bytes()
    assert "notes_used" not in json.loads((work / "again" / "manifest.json").read_text())

    state = home / ".local" / "share" / "chronoeval"
    new = sorted(_tree(home) - before)
    assert new and all((home / f).is_relative_to(state) for f in new), new
    assert (state / "memory" / "notes.jsonl").is_file() and (state / "sessions.sqlite").is_file()
    assert sorted(p.name for p in work.iterdir()) == ["again", "first", "runs"]
    assert not list(tmp.iterdir())  # temp files are cleaned up
    # a build steered by the notes (--use-notes) and what it records: tests/graph/test_build_graph.py


def test_the_same_notes_give_the_same_choice_and_digest(tmp_path):
    notes = [ExperienceNote(kind="agent_failure", text="agent naive failed 4/4 answers to sequence_match questions",
                            tags=["sequence_match"], source="runs/a"),
             ExperienceNote(kind="agent_failure", text="agent naive failed 3/4 answers to state_duration questions",
                            tags=["state_duration"], source="runs/a"),
             ExperienceNote(kind="user_preference", text="prefers a 5-minute cadence", source="chat")]
    a, b = Memory(tmp_path / "a", HashEmbedder()), Memory(tmp_path / "b", HashEmbedder())
    for n in notes:
        a.remember(n)
    for n in reversed(notes):
        b.remember(n)
    ua, ub = notes_used(a), notes_used(b)
    assert ua["templates"] == ub["templates"] == ["sequence_match", "state_duration"]
    assert ua["digest"] == ub["digest"] and len(ua["ids"]) == 2  # the preference note steers nothing
    a.remember(ExperienceNote(kind="agent_failure", text="agent x failed 2/2 answers to exists questions",
                              tags=["exists"], source="runs/b"))
    assert notes_used(a)["digest"] != ua["digest"]
    assert notes_used(Memory(tmp_path / "empty", HashEmbedder()))["ids"] == []
