"""``chronoeval memory``: search, add, list and rebuild the RAG memory (knowledge/).

Where the memory lives: ``--dir``, else ``$CHRONOEVAL_MEMORY_DIR``, else ``$CHRONOEVAL_HOME/memory``
(graph/paths.py; ``~/.local/share/chronoeval/memory`` by default). The
embedding model: ``--embeddings``, else ``$CHRONOEVAL_EMBEDDINGS`` (a local sentence-transformers
model directory, or ``hash`` for the model-free test embedder), else the bundled
all-MiniLM-L6-v2. ``list`` never loads a model (and never imports torch).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from graph.cli_base import app, errors, register_user_errors
from graph.console import out, print_ok
from knowledge.kinds import DOC_KINDS, NOTE_KINDS

memory_app = typer.Typer(help="Search and grow the memory of domain patterns and experience notes.",
                         no_args_is_help=True)
app.add_typer(memory_app, name="memory")


DirOpt = Annotated[Path | None, typer.Option(
    "--dir", help="Memory directory (default: $CHRONOEVAL_MEMORY_DIR or $CHRONOEVAL_HOME/memory).")]
EmbOpt = Annotated[str | None, typer.Option(
    "--embeddings", help="Embedding model: a local sentence-transformers directory, or `hash` "
                         "(default: $CHRONOEVAL_EMBEDDINGS or the bundled all-MiniLM-L6-v2).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON lines instead of a table.")]


def default_memory_dir() -> Path:
    """``$CHRONOEVAL_MEMORY_DIR``, else ``$CHRONOEVAL_HOME/memory`` (graph/paths.py)."""
    from graph.paths import memory_dir

    return memory_dir()


def open_memory(dir: Path | None = None, embeddings: str | None = None, progress=None):
    """A ``knowledge.Memory`` configured the CLI way (options, then environment, then defaults).
    Other graph/ modules use this to share the user's memory."""
    from knowledge.embed import EmbedderError, embedder_from_name
    from knowledge.memory import Memory

    register_user_errors(EmbedderError)
    name = embeddings if embeddings is not None else os.environ.get("CHRONOEVAL_EMBEDDINGS")
    return Memory(dir or default_memory_dir(), embedder_from_name(name), progress=progress)


class _Bar:
    """A progress callback drawing a rich bar once there is embedding work."""

    def __init__(self, progress, what: str):
        self.progress, self.what, self.task = progress, what, None

    def __call__(self, done: int, total: int) -> None:
        if self.task is None:
            self.task = self.progress.start(self.what, total)
        self.progress.progress.update(self.task, completed=done)


def _check_dir(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise NotADirectoryError(f"{path} is a file, not a memory directory; pass another --dir")


def _filters(kind: list[str] | None, domain: str | None, tag: list[str] | None) -> dict | None:
    allowed = DOC_KINDS + NOTE_KINDS
    for k in kind or []:
        if k not in allowed:
            raise typer.BadParameter(f"unknown kind {k!r}; choose from {', '.join(allowed)}", param_hint="--kind")
    f = {"kind": kind or None, "domain": domain, "tag": tag or None}
    return {k: v for k, v in f.items() if v} or None


def _kind(doc) -> str:
    return doc.note_kind or doc.kind


def _snippet(text: str, width: int = 90) -> str:
    import textwrap

    return textwrap.shorten(" ".join(text.split()), width=width, placeholder=" …")


@memory_app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for, in plain words.")],
    k: Annotated[int, typer.Option("-k", "--k", min=1, help="How many results.")] = 5,
    kind: Annotated[list[str] | None, typer.Option("--kind", help="Only this kind (repeatable): "
                                                   + ", ".join(DOC_KINDS + NOTE_KINDS))] = None,
    domain: Annotated[str | None, typer.Option("--domain", help="Only documents of this domain (pack), and "
                                               "general ones (templates, any-domain personas and notes).")] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="Only documents with this tag (repeatable).")] = None,
    dir: DirOpt = None,
    embeddings: EmbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Find the documents and notes closest in meaning to QUERY: score, kind, source."""
    from graph.console import RichProgress

    filters = _filters(kind, domain, tag)  # before errors(): a BadParameter is typer's usage error (exit 2)
    with errors():
        mem_dir = dir or default_memory_dir()
        _check_dir(mem_dir)
        with RichProgress() as progress:
            mem = open_memory(mem_dir, embeddings, _Bar(progress, "indexing the memory"))
            hits = mem.search(query, k=k, filters=filters)
        if as_json:
            for h in hits:
                typer.echo(json.dumps({"score": round(h.score, 4), **h.doc.model_dump(mode="json")}))
            return
        _print_hits(hits, query)


def _print_hits(hits, query: str) -> None:
    from rich import box
    from rich.table import Table

    if not hits:
        out.print(f"no documents match (query: {query!r}); drop filters or add notes with `chronoeval memory add`")
        return
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, expand=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    table.add_column("document", ratio=2, overflow="fold")
    table.add_column("source", ratio=1, overflow="fold")
    table.add_column("n", justify="right", no_wrap=True)
    for h in hits:
        d = h.doc
        table.add_row(f"{h.score:.3f}", _kind(d), f"{d.id}\n{_snippet(d.text if d.kind == 'note' else d.title)}",
                      d.source or "—",
                      str(d.count) if d.kind == "note" else "")
    out.print(table)


@memory_app.command()
def add(
    text: Annotated[str, typer.Argument(help="The lesson, failure, preference or rejection, in one sentence.")],
    kind: Annotated[str, typer.Option("--kind", help="One of: " + ", ".join(NOTE_KINDS))],
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag, e.g. a template name (repeatable).")] = None,
    source: Annotated[str, typer.Option("--source", help="The bundle directory or run id it came from.")] = "",
    domain: Annotated[str | None, typer.Option("--domain", help="The domain (pack) it applies to.")] = None,
    dir: DirOpt = None,
    embeddings: EmbOpt = None,
) -> None:
    """Remember an experience note; a near-duplicate of an earlier note is merged into it (count + 1)."""
    from graph.console import RichProgress

    if kind not in NOTE_KINDS:
        raise typer.BadParameter(f"unknown kind {kind!r}; choose from {', '.join(NOTE_KINDS)}", param_hint="--kind")
    if not text.strip():
        raise typer.BadParameter("the note text is empty; write the lesson in one sentence", param_hint="TEXT")
    with errors():
        from knowledge.documents import ExperienceNote

        mem_dir = dir or default_memory_dir()
        _check_dir(mem_dir)
        note = ExperienceNote(kind=kind, text=text, tags=tag or [], source=source, domain=domain)
        with RichProgress() as progress:
            kept = open_memory(mem_dir, embeddings, _Bar(progress, "indexing the memory")).remember(note)
        if kept.id == note.id:
            print_ok(f"remembered {kept.id} ({kept.kind}) in {mem_dir}")
        else:
            print_ok(f"merged into {kept.id}, a near-duplicate note (now seen {kept.count} times): {kept.text}")


@memory_app.command("list")
def list_(
    kind: Annotated[list[str] | None, typer.Option("--kind", help="Only this kind (repeatable).")] = None,
    domain: Annotated[str | None, typer.Option("--domain", help="Only this domain (pack).")] = None,
    all_docs: Annotated[bool, typer.Option("--all", help="Every document (built-in packs, patterns, templates, "
                                           "personas, added documents), not only the notes.")] = False,
    dir: DirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the experience notes (or, with --all, every document); never loads a model."""
    from knowledge.memory import Memory

    filters = _filters(kind, domain, None)
    with errors():
        mem_dir = dir or default_memory_dir()
        _check_dir(mem_dir)
        mem = Memory(mem_dir, embedder=_NoEmbedder())
        if not all_docs:
            filters = {**(filters or {}), "kind": (filters or {}).get("kind") or ["note"]}
        docs = mem.documents(filters)
        if as_json:
            for d in docs:
                typer.echo(json.dumps(d.model_dump(mode="json")))
            return
        _print_docs(docs, mem_dir, all_docs)


class _NoEmbedder:
    """Listing must not load a model; any attempt to embed is a bug."""

    name, dim = "none", 0

    def embed(self, texts):  # pragma: no cover - guarded by the no-torch test
        raise RuntimeError("memory list must not embed")


def _print_docs(docs, mem_dir: Path, all_docs: bool) -> None:
    from rich import box
    from rich.table import Table

    if not docs:
        what = "documents" if all_docs else "experience notes"
        out.print(f"no {what} in {mem_dir}" + ("" if all_docs else "; add one with `chronoeval memory add`"))
        return
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for col in ("id", "kind", "domain", "n", "source", "text"):
        table.add_column(col, overflow="fold", justify="right" if col == "n" else "left")
    for d in docs:
        table.add_row(d.id, _kind(d), ",".join(d.domains) or "—", str(d.count) if d.kind == "note" else "",
                      d.source or "—", _snippet(d.text if d.kind == "note" else d.title, 70))
    out.print(table)
    out.print(f"{len(docs)} {'documents' if all_docs else 'notes'} in {mem_dir}")


@memory_app.command()
def rebuild(dir: DirOpt = None, embeddings: EmbOpt = None) -> None:
    """Re-embed and re-index every document and note (after changing the embedding model, say)."""
    from graph.console import RichProgress

    with errors():
        mem_dir = dir or default_memory_dir()
        _check_dir(mem_dir)
        with RichProgress() as progress:
            summary = open_memory(mem_dir, embeddings, _Bar(progress, "embedding documents")).rebuild()
        print_ok(f"indexed {summary.documents} documents ({summary.embedded} embedded, the rest reused) "
                 f"in {summary.seconds:.1f}s → {mem_dir}")
