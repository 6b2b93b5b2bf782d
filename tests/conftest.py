"""Shared pytest fixtures.

- No test touches the user's real home: HOME is a private directory shared by the session (so
  matplotlib's font cache is built once), CHRONOEVAL_HOME a fresh one per test, XDG_* unset.
- Every test runs offline with a private LLM cache unless it asks otherwise: CHRONOEVAL_MODEL=none,
  CHRONOEVAL_CACHE_DIR under the test's tmp dir (no test ever reaches a network address but 127.0.0.1),
  and a private RAG memory with the model-free embedder (CHRONOEVAL_MEMORY_DIR, CHRONOEVAL_EMBEDDINGS=hash).
- ``openai_server``: a started scripted OpenAI-compatible server (tests/llm_server.py) on 127.0.0.1;
  script replies with ``.script(...)``, ``.fail_with(500)``, ``.malformed_json()``, ``.delay(s)``,
  ``.respond_with(fn)``; inspect ``.requests``.
- ``llm_env``: the same server configured as the chronoeval LLM (CHRONOEVAL_MODEL=openai:scripted,
  OPENAI_BASE_URL, OPENAI_API_KEY, no client retries, 10 s timeout) with the usage counters reset.
"""

from __future__ import annotations

import pytest

from tests.llm_server import ScriptedOpenAIServer


@pytest.fixture(scope="session")
def _session_home(tmp_path_factory):
    return tmp_path_factory.mktemp("user-home")


@pytest.fixture(autouse=True)
def _private_home(monkeypatch, tmp_path_factory, _session_home):
    monkeypatch.setenv("HOME", str(_session_home))
    monkeypatch.setenv("CHRONOEVAL_HOME", str(tmp_path_factory.mktemp("chronoeval-home")))
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _offline_llm(monkeypatch, tmp_path_factory, _private_home):
    monkeypatch.setenv("CHRONOEVAL_MODEL", "none")
    monkeypatch.setenv("CHRONOEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("llm-cache")))
    # the RAG memory of CLI commands: a private directory and the model-free embedder (tests that
    # need the real model construct it, or set CHRONOEVAL_EMBEDDINGS themselves)
    monkeypatch.setenv("CHRONOEVAL_MEMORY_DIR", str(tmp_path_factory.mktemp("memory")))
    monkeypatch.setenv("CHRONOEVAL_EMBEDDINGS", "hash")
    # a model found unreachable by one test (agents.models goes offline) must not stay so for the next
    from agents.llm_cache import use_cache_dir
    from agents.models import reset_offline
    from graph.paths import llm_cache_dir

    reset_offline()
    use_cache_dir(llm_cache_dir)  # as the CLI does: the response cache where CHRONOEVAL_CACHE_DIR says


@pytest.fixture
def openai_server():
    with ScriptedOpenAIServer() as server:
        yield server


@pytest.fixture
def llm_env(openai_server, monkeypatch):
    from agents.models import reset_usage

    monkeypatch.setenv("CHRONOEVAL_MODEL", "openai:scripted")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("CHRONOEVAL_LLM_RETRIES", "0")
    monkeypatch.setenv("CHRONOEVAL_LLM_TIMEOUT", "10")
    reset_usage()
    return openai_server


PACK_SCALES = {"iot": 0.3, "telecom": 0.3, "observability": 0.5, "security": 0.3, "ecommerce": 0.3}


@pytest.fixture(scope="session")
def pack_suites(tmp_path_factory):
    """Every built-in pack generated at a small scale (observability needs 0.5 for its incident
    targets) with its default question suite: {pack: bundle dir}. Built once per session (≈15 s);
    copy a bundle before changing it."""
    from knowledge.packs import load_pack
    from tools.generate import generate_bundle
    from tools.queries.suite import build_suite

    root = tmp_path_factory.mktemp("pack-suites")
    out = {}
    for pack, scale in PACK_SCALES.items():
        d = root / pack
        generate_bundle(load_pack(pack), d, scale=scale, force=True)
        build_suite(d)
        out[pack] = d
    return out


@pytest.fixture(scope="session")
def small_bundle(tmp_path_factory):
    """``small_bundle(pack, n, seed)``: the pack at scale 0.3 with an ``n``-question suite, built once
    per (pack, n, seed) for the whole session. Copy it before changing it."""
    from knowledge.packs import load_pack
    from tools.generate import generate_bundle
    from tools.queries.suite import build_suite

    built: dict = {}

    def make(pack: str, n: int, seed: int):
        key = (pack, n, seed)
        if key not in built:
            d = tmp_path_factory.mktemp(f"{pack}-{n}-{seed}") / pack
            generate_bundle(load_pack(pack), d, scale=0.3, force=True)
            build_suite(d, n=n, seed=seed)
            built[key] = d
        return built[key]

    return make
