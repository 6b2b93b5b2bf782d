"""The agent's workspace: only table copies in the chosen backend, removed afterwards, stale ones
of killed evals cleaned by the next."""

from __future__ import annotations

import os
import stat
import subprocess

import pytest

from tools.harness.context import HarnessError
from tools.harness.workspace import PREFIX, agent_workspace


@pytest.mark.parametrize("backend, expected", [
    ("duckdb", {"data.duckdb"}),
    ("parquet", {"data/readings.parquet", "data/sensors.parquet"}),
    ("csv", {"data/readings.csv", "data/sensors.csv"}),
])
def test_the_workspace_holds_read_only_table_copies_and_nothing_else(iot_bundle, tmp_path, backend, expected):
    with agent_workspace(iot_bundle, backend, parent=tmp_path) as ws:
        files = {str(p.relative_to(ws.root)) for p in ws.root.rglob("*") if p.is_file()}
        assert files >= expected and all(f.endswith((".duckdb", ".parquet", ".csv")) for f in files)
        assert all(not (ws.root / f).stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) for f in files)
        ctx = ws.context
        assert ctx.workdir == str(ws.root) and str(iot_bundle) not in ctx.model_dump_json()
        assert (ctx.db_path or ctx.data_dir).startswith(str(ws.root))
        assert "readings" in ctx.tables
    assert not ws.root.exists()


def test_a_postgres_workspace_needs_a_dsn_and_an_empty_data_dir_is_refused(iot_bundle, tmp_path):
    with pytest.raises(HarnessError, match="--dsn"):
        agent_workspace(iot_bundle, "postgres", parent=tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(HarnessError, match="no .parquet tables"):
        agent_workspace(iot_bundle, "parquet", data_dir=tmp_path / "empty", parent=tmp_path)
    assert not list(tmp_path.glob(f"{PREFIX}*"))  # nothing left behind by the failures


def test_workspaces_left_by_killed_evals_are_removed_by_the_next(iot_bundle, tmp_path):
    dead = tmp_path / f"{PREFIX}4000000-abc"  # beyond any pid: its eval is gone
    live = tmp_path / f"{PREFIX}{os.getpid()}-def"
    for d in (dead, live):
        (d / "data").mkdir(parents=True)
        (d / "data" / "t.csv").write_text("x\n")
        os.chmod(d / "data", 0o555)
    orphan = subprocess.Popen(["sleep", "300"], cwd=dead)  # an agent the killed eval left running
    with agent_workspace(iot_bundle, "duckdb", parent=tmp_path):
        assert not dead.exists() and live.exists()
    assert orphan.wait(timeout=5) == -9
