"""The private working directory of an agent-under-test.

It holds only what a question may use: a read-only copy of the tables in the chosen backend
(``data.duckdb``, or ``data/<table>.parquet`` / ``data/<table>.csv``), in a fresh temp directory
far from the bundle and the run directory. The agent is told this directory and these files,
never the bundle path, so neither ``qa.jsonl`` nor ``incidents.json`` is next to it, and writing
to its copy changes nothing the eval reads. The directory is removed when the eval ends; one left
by a killed eval (its pid is in the name) is removed by the next.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from tools.bundle.opened import bundle_schema
from tools.harness.backends import get_backend
from tools.harness.context import AgentContext, Backend

PREFIX = "chronoeval-agent-"


def remove_tree(path: Path) -> None:
    """Delete ``path`` even where an agent left read-only files and directories behind."""
    if not path.exists():
        return
    for root, dirs, _files in os.walk(path):
        for d in dirs:
            try:
                os.chmod(os.path.join(root, d), stat.S_IRWXU)
            except OSError:
                pass
    try:
        os.chmod(path, stat.S_IRWXU)
    except OSError:
        pass
    shutil.rmtree(path, ignore_errors=True)


def _kill_processes_in(root: Path) -> None:
    """SIGKILL the agent processes a killed eval left running in its workspace (their cwd is there)."""
    import psutil

    for proc in psutil.process_iter(["cwd"]):
        try:
            if (proc.info["cwd"] or "").startswith(str(root)) and proc.pid != os.getpid():
                proc.kill()
        except psutil.Error:
            pass


def remove_stale(parent: Path) -> list[Path]:
    """Remove the workspaces that evals killed before their cleanup left in ``parent`` (their
    process is gone), and stop any agent process still running in one; returns them."""
    removed = []
    for p in parent.glob(f"{PREFIX}*-*"):
        pid = p.name[len(PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or not p.is_dir():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            _kill_processes_in(p)
            remove_tree(p)
            removed.append(p)
        except PermissionError:  # another user's live process
            pass
    return removed


class Workspace:
    """A working directory with read-only table copies, and the context that describes it."""

    def __init__(self, root: Path, context: AgentContext):
        self.root, self.context = root, context

    def close(self) -> None:
        """Remove the directory (the agent processes must be gone by now)."""
        remove_tree(self.root)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def agent_workspace(bundle: Path, backend: Backend = "duckdb", *, data_dir: Path | None = None,
                    dsn: str | None = None, parent: Path | None = None) -> Workspace:
    """A fresh workspace for ``bundle`` on ``backend``: ``duckdb`` copies data.duckdb, ``parquet``
    the bundle's (or ``data_dir``'s) Parquet files, ``csv`` the CSV files of ``data_dir`` or new
    ones written from the bundle; ``postgres`` only passes the DSN of the loaded tables."""
    bundle = Path(bundle)
    kind = get_backend(backend, dsn)
    schema = bundle_schema(bundle)
    remove_stale(Path(parent) if parent else Path(tempfile.gettempdir()))
    root = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=parent))
    try:
        ctx = AgentContext(backend=backend, workdir=str(root), tables=sorted(schema), schema_=schema)
        ctx = ctx.model_copy(update=kind.workspace(bundle, root, data_dir, dsn))
        return Workspace(root, ctx)
    except BaseException:
        remove_tree(root)
        raise
