"""The backend and agent-adapter registries: one list each, the CLI's help generated from them, and a
new backend or adapter added as one file (the recipes in docs/EXTENDING.md)."""

from __future__ import annotations

import textwrap

import pytest
from typer.testing import CliRunner

from tools.harness import agent_kinds, backends
from tools.harness.adapters import resolve_agent
from tools.harness.context import AgentContext, HarnessError, build_context
from tools.harness.workspace import agent_workspace


def test_the_backends_are_found_in_their_folder_in_order():
    assert backends.backend_names() == ("duckdb", "parquet", "csv", "postgres")
    with pytest.raises(HarnessError, match="unknown backend 'sqlite'; use duckdb, parquet, csv or postgres"):
        backends.get_backend("sqlite")
    with pytest.raises(HarnessError, match="--backend postgres needs --dsn postgresql://"):
        backends.get_backend("postgres")
    with pytest.raises(ValueError, match="unknown backend"):
        AgentContext(backend="sqlite", tables=[], schema_={})


def test_the_eval_help_lists_every_backend_and_adapter_of_the_registries():
    from graph.cli import app

    r = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "250", "TERM": "dumb"})
    flat = " ".join(r.output.replace("│", " ").split())
    assert "duckdb | parquet | csv | postgres" in flat
    assert 'oracle | naive | llm-sql | python:module:function | http:URL (OpenAI-compatible) | cmd:"command"' in flat


TOY_BACKEND = '''
"""Backend ``dbcopy``: the agent gets data.duckdb under another name (a toy for the test)."""
import shutil

from tools.harness.backends import BackendKind


def _workspace(bundle, root, data_dir, dsn):
    shutil.copyfile(bundle / "data.duckdb", root / "copy.duckdb")
    return {"db_path": str(root / "copy.duckdb")}


BACKEND = BackendKind(name="dbcopy", order=50, help="a renamed copy", where=lambda c: f"a copy at {c.db_path}",
                      reference=lambda bundle, data_dir, dsn: {"db_path": str(bundle / "data.duckdb")},
                      workspace=_workspace)
'''


@pytest.fixture
def toy_backend(tmp_path, monkeypatch):
    folder = tmp_path / "more_backends"
    folder.mkdir()
    (folder / "dbcopy_file.py").write_text(textwrap.dedent(TOY_BACKEND))
    monkeypatch.setattr(backends, "__path__", [*backends.__path__, str(folder)])
    backends.backends.cache_clear()
    yield
    backends.backends.cache_clear()


def test_a_backend_is_one_file_in_the_backends_folder(toy_backend, iot_bundle, tmp_path):
    assert backends.backend_names()[-1] == "dbcopy"
    with agent_workspace(iot_bundle, "dbcopy", parent=tmp_path) as ws:
        assert {p.name for p in ws.root.iterdir()} == {"copy.duckdb"}
        assert ws.context.schema_text().startswith(f"Data: a copy at {ws.root / 'copy.duckdb'}.")
    assert build_context(iot_bundle, "dbcopy").db_path == str(iot_bundle / "data.duckdb")


TOY_ADAPTER = '''
"""``echo:PREFIX`` agents: answer with the prefix and the question (a toy for the test)."""


def echo_adapter(target, options):
    return lambda question, context: f"{target} {question} ({options.timeout:g} s)"
'''


def test_an_agent_adapter_is_one_file_and_one_registry_entry(tmp_path, monkeypatch, iot_bundle):
    (tmp_path / "toy_echo_agent.py").write_text(textwrap.dedent(TOY_ADAPTER))
    monkeypatch.syspath_prepend(str(tmp_path))
    kind = agent_kinds.AdapterKind("echo", "echo:PREFIX", "echo:PREFIX", "repeats the question",
                                   "toy_echo_agent:echo_adapter")
    monkeypatch.setitem(agent_kinds.ADAPTER_KINDS, "echo", kind)
    agent, self_timed = resolve_agent("echo:Q>", timeout=3)
    assert self_timed and agent("how many?", build_context(iot_bundle)) == "Q> how many? (3 s)"
    assert agent_kinds.agent_help(["oracle"]).endswith("| echo:PREFIX")
    with pytest.raises(HarnessError, match="did you mean 'echo:'.*use one of .*echo:PREFIX"):
        resolve_agent("ecko:x", timeout=1)
