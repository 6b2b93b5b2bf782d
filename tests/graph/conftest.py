"""Fixtures of the graph tests."""

from __future__ import annotations

import pytest

WALKTHROUGH = ("20 cell towers reporting dropped call rate, throughput and connected users every 15 minutes over 2 "
               "days; cells go through active, congested and outage")


@pytest.fixture(scope="session")
def walkthrough_bundle(tmp_path_factory):
    """The README walkthrough's bundle (`chronoeval build "20 cell towers ..." --yes --n 12`), built once,
    offline; copy it before changing it."""
    from typer.testing import CliRunner

    from graph.cli import app

    out = tmp_path_factory.mktemp("walkthrough") / "towers"
    r = CliRunner().invoke(app, ["build", WALKTHROUGH, "-o", str(out), "--yes", "--n", "12",
                                 "--sessions", str(out.parent / "sessions.db"), "--no-memory"])
    assert r.exit_code == 0, r.output
    return out
