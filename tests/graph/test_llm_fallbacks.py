"""An unreachable LLM server never makes build or chat fail: one warning, then the deterministic
paths finish the job (issue 15, item 7). Real processes, OPENAI_BASE_URL on a closed port."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _cli(args: list[str], tmp_path: Path, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CHRONOEVAL_"))}
    env.update({"CHRONOEVAL_MODEL": "openai:gpt-4.1-mini", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
                "OPENAI_API_KEY": "sk-test", "CHRONOEVAL_LLM_RETRIES": "0", "CHRONOEVAL_EMBEDDINGS": "hash",
                "CHRONOEVAL_HOME": str(tmp_path / "home"), "CHRONOEVAL_MEMORY_DIR": str(tmp_path / "memory"),
                "CHRONOEVAL_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "200"})
    return subprocess.run([sys.executable, "-m", "graph.cli", *args], cwd=ROOT, env=env, text=True, input=stdin,
                          capture_output=True, timeout=300)


@pytest.mark.slow
def test_build_and_chat_with_an_unreachable_llm_warn_once_and_finish_offline(tmp_path):
    out = tmp_path / "vans"
    r = _cli(["build", "a small fleet of delivery vans with GPS speed and fuel", "-o", str(out), "--yes", "--n", "4",
              "--sessions", str(tmp_path / "s.db")], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("warning: cannot reach the LLM") == 1 and "127.0.0.1:9" in r.stderr
    assert "Continuing offline" in r.stderr and "internal error" not in r.stderr + r.stdout
    assert (out / "qa.jsonl").is_file()
    r = _cli(["chat", str(out), "--sessions", str(tmp_path / "s.db")], tmp_path,
             stdin="add a spike incident on speed\nshow incidents\nquit\n")
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("warning: cannot reach the LLM") == 1
    assert "internal error" not in r.stderr + r.stdout and "spike" in r.stdout
