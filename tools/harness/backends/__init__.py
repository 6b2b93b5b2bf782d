"""Where an agent-under-test can read the data: the backend registry.

Each backend is one module in this folder defining ``BACKEND = BackendKind(...)``: its name, a
short help phrase, how the schema prompt names the data, and two factories: the fields of the
trusted reference context (the bundle's own files) and the read-only copy an agent-under-test gets
in its workspace. The registry is discovered from the folder, so adding a backend is adding a file;
the CLI's ``--backend`` help and its did-you-mean list come from :func:`backend_names`.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tools.harness.backends._sql import Query
    from tools.harness.context import AgentContext

Fields = dict[str, Any]  # AgentContext fields a backend sets: db_path, data_dir or dsn


@dataclass(frozen=True)
class BackendKind:
    """One backend. ``reference(bundle, data_dir, dsn)`` gives the context fields for reading the
    bundle's own files; ``workspace(bundle, root, data_dir, dsn)`` copies the tables into the agent's
    directory ``root`` and gives its fields; ``where(context)`` names the data in the schema prompt;
    ``needs_dsn``: the backend cannot run without ``--dsn`` (said when it is missing).
    ``connect(context)`` opens a read-only SQL connection to the data, for agents that write SQL
    themselves (the built-in ``llm-sql``; see ``backends/_sql.py``), in ``sql_dialect``; ``None`` when
    the backend offers none."""

    name: str
    order: int
    help: str
    where: Callable[[AgentContext], str]
    reference: Callable[[Path, Path | None, str | None], Fields]
    workspace: Callable[[Path, Path, Path | None, str | None], Fields]
    needs_dsn: bool = False
    connect: Callable[[AgentContext], Query] | None = None
    sql_dialect: str = "DuckDB"


DSN_EXAMPLE = "postgresql://user@host:port/db"


@cache
def backends() -> dict[str, BackendKind]:
    """Every backend, by name, in their ``order`` (modules of this folder defining ``BACKEND``)."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            kind = getattr(import_module(f"{__name__}.{info.name}"), "BACKEND", None)
            if isinstance(kind, BackendKind):
                found.append(kind)
    return {k.name: k for k in sorted(found, key=lambda k: (k.order, k.name))}


def backend_names() -> tuple[str, ...]:
    """The backend names, in order (``duckdb``, ``parquet``, ``csv``, ``postgres``)."""
    return tuple(backends())


def names_text(last: str = " or ") -> str:
    """The names as a phrase: ``duckdb, parquet, csv or postgres``."""
    names = backend_names()
    return ", ".join(names[:-1]) + last + names[-1] if len(names) > 1 else "".join(names)


def get_backend(name: str, dsn: str | None = None) -> BackendKind:
    """The backend called ``name``; a HarnessError when there is none, or when it needs a DSN and
    ``dsn`` is empty."""
    from tools.harness.context import HarnessError

    kind = backends().get(name)
    if kind is None:
        raise HarnessError(f"unknown backend {name!r}; use {names_text()}")
    if kind.needs_dsn and not dsn:
        raise HarnessError(f"--backend {name} needs --dsn {DSN_EXAMPLE}")
    return kind
