"""``chronoeval chat [OUT] [--thread ID]``: refine a bundle in conversation (a REPL; a script on stdin
works too). Type ``help`` for the offline grammar; ``quit`` or end of input ends the session, which
stays resumable with ``--thread``."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Annotated

import typer

from graph.cli_base import app, errors
from graph.cli_build import BuildError, open_checkpointer, sessions_path
from graph.cli_verify import bundle_writer
from graph.console import err, out


def _read(interactive: bool) -> str | None:
    if interactive:
        from rich.prompt import Prompt

        try:
            return Prompt.ask("[bold cyan]chronoeval[/]", console=err)
        except EOFError:
            return None
    line = sys.stdin.readline()
    return None if line == "" else line.rstrip("\n")


@app.command()
def chat(
    bundle: Annotated[Path | None, typer.Argument(metavar="OUT", help="The bundle to refine.")] = None,
    thread: Annotated[str | None, typer.Option("--thread", help="Resume (or name) a chat session.")] = None,
    sessions: Annotated[Path | None, typer.Option("--sessions", help="Session store (SQLite).")] = None,
    memory: Annotated[bool, typer.Option("--memory/--no-memory", help="Record applied refinements as "
                                         "user-preference notes in the RAG memory.")] = True,
    yes: Annotated[bool, typer.Option("--yes", help="Apply each change at once instead of showing a preview "
                                      "and waiting for 'ok' (for scripts).")] = False,
    ops: Annotated[Path | None, typer.Option("--ops", help="Apply the operations in this JSON/YAML file (a list; "
                                             "docs/BUILDING.md 'Chat operations'): a preview, or with --yes the "
                                             "change, as one version.")] = None,
) -> None:
    """Refine a bundle by chat: personas, incidents, questions, size. Shows each change before applying it;
    re-runs only what it invalidates; `undo` takes it back."""
    from langgraph.types import Command

    if ops is not None:
        return _ops_file(bundle, ops, yes)
    with errors():
        from agents.models import get_chat_model
        from graph.chat import ChatContext, build_chat_graph

        g = build_chat_graph(checkpointer=open_checkpointer(sessions_path(sessions)))
        tid = thread or f"chat-{uuid.uuid4().hex[:8]}"
        config = {"configurable": {"thread_id": tid}, "recursion_limit": 10_000}
        saved = g.get_state(config)
        from graph.cli_memory import open_memory

        ctx = ChatContext(model=get_chat_model(), memory=open_memory() if memory else None, yes=yes,
                          on_reply=lambda lines: [out.print(x, highlight=False, soft_wrap=True) for x in lines])
        if not saved.next:
            if saved.values.get("done"):
                raise BuildError(f"chat session {tid} has ended; start a new one with `chronoeval chat OUT`")
            if bundle is None:
                raise BuildError("give the bundle to refine: chronoeval chat OUT")
            from tools.bundle.opened import open_bundle

            open_bundle(bundle).close()  # a clear error when OUT is not a bundle
            with bundle_writer(bundle):
                g.invoke({"bundle": str(bundle), "turns": []}, config, context=ctx)
            err.print(f"chat on {bundle} (session {tid}; resume with --thread {tid}). Type 'help' for examples.")
        else:
            err.print(f"resuming chat session {tid} on {g.get_state(config).values['bundle']}")
        interactive = sys.stdin.isatty()
        asked, failed, quit_ = 0, [], False
        while True:
            line = _read(interactive)
            if line is None:
                err.print(f"session saved; resume with: chronoeval chat --thread {tid}")
                break
            if not line.strip():
                continue
            with bundle_writer(Path(g.get_state(config).values["bundle"])):  # each turn may change it
                g.invoke(Command(resume=line), config, context=ctx)
            state = g.get_state(config).values
            turn = (state.get("turns") or [{}])[-1]
            asked += 1
            if turn_failed(turn):
                failed.append(line.strip())
            if state.get("done"):
                quit_, asked = True, asked - 1  # leaving is not a request
                break
        _end(failed, asked, quit_, interactive)


REQUESTS_FAILED = 2


def _end(failed: list[str], asked: int, quit_: bool, interactive: bool) -> None:
    """Say which requests were refused. Leaving normally (``quit``, or the end of an interactive session)
    exits 0; a script that ends without ``quit`` exits 2 when any request failed, so scripts notice."""
    if not failed:
        return
    from graph.console import print_error

    said = (f"{len(failed)} of {asked} request(s) failed: " + "; ".join(f"'{x}'" for x in failed[:5])
            + ("; …" if len(failed) > 5 else "") + " (nothing was changed for them; `help` shows what chat understands)")
    if quit_ or interactive:
        err.print(f"note: {said}", highlight=False)
        return
    print_error(said)
    raise typer.Exit(REQUESTS_FAILED)


def turn_failed(turn: dict) -> bool:
    """A chat turn whose request was not understood, was asked back, or could not be applied."""
    return bool(turn.get("failed"))


def _ops_file(bundle: Path | None, path: Path, yes: bool) -> None:
    """``chat OUT --ops FILE [--yes]``: validate the operations (errors name the item), preview them, apply with --yes."""
    import yaml
    from pydantic import ValidationError

    from agents.chat_apply import apply_ops, preview
    from graph.cli_base import register_user_errors
    from tools.bundle.history import HistoryError
    from tools.chat.ops import parse_operations
    from tools.describe.apply import RefineError

    register_user_errors(RefineError, HistoryError)  # an operation the bundle cannot take is the user's to fix
    with errors():
        if bundle is None:
            raise BuildError("give the bundle: chronoeval chat OUT --ops FILE")
        if not path.is_file():
            raise BuildError(f"{path}: no such file; give a JSON or YAML list of operations")
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            operations = parse_operations(data if isinstance(data, list) else [data])
        except yaml.YAMLError as exc:
            raise BuildError(f"{path}: not JSON or YAML ({exc})") from None
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            raise BuildError(f"{path}: item {where}: {first['msg']} (docs/BUILDING.md lists each operation's "
                             "fields)") from None
        from tools.bundle.opened import open_bundle

        open_bundle(bundle).close()
        with bundle_writer(bundle):
            from agents.models import get_chat_model

            lines = apply_ops(bundle, operations, get_chat_model()).lines() if yes else preview(bundle, operations).lines()
        for line in lines:
            out.print(line.replace("say 'ok' to apply", "run again with --yes to apply"), highlight=False,
                      soft_wrap=True)


def _versions(bundle: Path, what: str) -> None:
    from agents.chat_versions import run_control

    with errors():
        from tools.bundle.opened import open_bundle

        open_bundle(bundle).close()
        with bundle_writer(bundle):
            change = run_control(bundle, what)
        for line in change.lines():
            out.print(line, highlight=False, soft_wrap=True)
        if change.summary.startswith("could not"):
            raise typer.Exit(REQUESTS_FAILED)


BundleArg = Annotated[Path, typer.Argument(metavar="OUT", help="The bundle.")]


@app.command()
def undo(bundle: BundleArg) -> None:
    """Take back the last change chat applied: the bundle's bytes become those before it."""
    _versions(bundle, "undo")


@app.command()
def redo(bundle: BundleArg) -> None:
    """Apply again the change the last `undo` took back."""
    _versions(bundle, "redo")


@app.command()
def history(bundle: BundleArg) -> None:
    """List the changes chat applied to a bundle (each a version `undo` can take back)."""
    _versions(bundle, "history")
