"""`chronoeval memory search/add/list/rebuild` with the model-free hash embedder; `list` never
imports torch and starts fast; bad input exits 2 with one message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graph.cli import app

ROOT = Path(__file__).resolve().parents[2]


def run(*args, env=None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


@pytest.fixture
def hash_env(monkeypatch, tmp_path):
    monkeypatch.setenv("CHRONOEVAL_EMBEDDINGS", "hash")
    monkeypatch.setenv("CHRONOEVAL_MEMORY_DIR", str(tmp_path / "env-memory"))
    return tmp_path


def test_add_merges_near_duplicates_and_list_shows_the_count(hash_env):
    d = hash_env / "mem"
    text = "agent X failed 9/12 sequence_match questions by matching exact instead of sub-sequences"
    r = run("memory", "add", text, "--kind", "agent_failure", "--tag", "sequence_match", "--source", "runs/r1",
            "--dir", d)
    assert r.exit_code == 0, r.output
    assert "remembered n-" in r.output
    r = run("memory", "add", text, "--kind", "agent_failure", "--dir", d)
    assert r.exit_code == 0 and "merged into n-" in r.output and "2 times" in r.output
    r = run("memory", "list", "--dir", d, "--json")
    [row] = [json.loads(x) for x in r.output.splitlines()]
    assert (row["note_kind"], row["count"], row["source"], row["tags"]) == \
        ("agent_failure", 2, "runs/r1", ["sequence_match"])
    r = run("memory", "list", "--dir", d)
    assert r.exit_code == 0 and "1 notes in" in r.output and "agent_failure" in r.output


def test_search_shows_score_kind_and_source(hash_env):
    d = hash_env / "mem"
    run("memory", "add", "user prefers a 5-minute cadence for telecom", "--kind", "user_preference",
        "--domain", "telecom", "--source", "chat/42", "--dir", d)
    r = run("memory", "search", "flatline stuck sensor repeating value", "-k", "3", "--dir", d)
    assert r.exit_code == 0, r.output
    assert "score" in r.output and "pattern:flatline" in r.output and "tools/patterns" in r.output
    r = run("memory", "search", "cadence", "--kind", "user_preference", "--dir", d, "--json")
    [hit] = [json.loads(x) for x in r.output.splitlines()]
    assert hit["source"] == "chat/42" and hit["count"] == 1 and 0 < hit["score"] <= 1
    r = run("memory", "search", "cadence", "--domain", "telecom", "--kind", "pattern", "-k", "20", "--dir", d,
            "--json")
    kinds = {json.loads(x)["kind"] for x in r.output.splitlines()}
    assert kinds == {"pattern"}
    r = run("memory", "search", "cadence", "--domain", "nowhere", "--kind", "pack", "--dir", d)
    assert r.exit_code == 0 and "no documents match" in r.output


def test_memory_dir_comes_from_the_environment(hash_env):
    r = run("memory", "add", "judge rejected vague wording", "--kind", "judge_rejection")
    assert r.exit_code == 0, r.output
    assert (hash_env / "env-memory" / "notes.jsonl").is_file()
    assert "judge_rejection" in run("memory", "list").output


def test_list_all_and_rebuild(hash_env):
    d = hash_env / "mem"
    r = run("memory", "list", "--all", "--kind", "template", "--dir", d)
    from tools.queries.registry import load_templates

    assert r.exit_code == 0 and f"{len(load_templates())} documents" in r.output  # one per template
    assert not d.exists()  # listing creates nothing
    r = run("memory", "rebuild", "--dir", d)
    assert r.exit_code == 0, r.output
    assert "indexed" in r.output and (d / "index" / "meta.json").is_file()
    assert json.loads((d / "index" / "meta.json").read_text())["embedder"] == "hash-256"


@pytest.mark.parametrize("args, message", [
    (["memory", "add", "x", "--kind", "gossip"], "unknown kind 'gossip'"),
    (["memory", "search", "x", "--kind", "gossip"], "unknown kind 'gossip'"),
    (["memory", "add", "  ", "--kind", "agent_failure"], "the note text is empty"),
])
def test_bad_options_exit_2(hash_env, args, message):
    r = run(*args, "--dir", hash_env / "mem")
    assert r.exit_code == 2 and message in r.output


def test_memory_dir_that_is_a_file_exits_2(hash_env):
    f = hash_env / "file"
    f.write_text("x")
    r = run("memory", "list", "--dir", f)
    assert r.exit_code == 2 and "is a file, not a memory directory" in r.output and "Traceback" not in r.output


def test_bad_hash_embedder_spec_exits_2(hash_env):
    r = run("memory", "search", "x", "--embeddings", "hash:big", "--dir", hash_env / "mem")
    assert r.exit_code == 2 and "hash:DIM" in r.output


@pytest.mark.slow
def test_missing_model_directory_exits_2_without_traceback(hash_env):
    r = run("memory", "search", "x", "--embeddings", str(hash_env / "no-model"), "--dir", hash_env / "mem")
    assert r.exit_code == 2 and "cannot load embedding model" in r.output and "Traceback" not in r.output


def test_list_never_imports_torch_and_starts_fast(tmp_path):
    code = ("import sys\nfrom graph.cli import app\n"
            f"try:\n    app(['memory', 'list', '--all', '--json', '--dir', {str(tmp_path)!r}])\n"
            "except SystemExit:\n    pass\n"
            "print('TORCH', 'torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "TORCH False False" in r.stdout, r.stdout + r.stderr
    assert "pattern:flatline" in r.stdout
    exe = Path(sys.executable).with_name("chronoeval")
    cmd = [str(exe)] if exe.is_file() else [sys.executable, "-m", "graph.cli"]
    import resource

    best = float("inf")
    for _ in range(3):  # best of three, in CPU seconds of the child: the machine is shared
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([*cmd, "memory", "list", "--dir", str(tmp_path)], cwd=ROOT, check=True,
                       capture_output=True, timeout=60)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    assert best <= 1.5, f"`chronoeval memory list` took {best:.2f} CPU seconds"
