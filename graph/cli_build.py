"""``chronoeval build``: a whole eval from a plain-language description (or a pack, sample tables or
DDL), through the supervisor graph, with a human review point and resumable sessions.

Sessions are checkpointed in SQLite (``--sessions``, default ``$CHRONOEVAL_HOME/sessions.sqlite``,
``~/.local/share/chronoeval`` without it): a build paused at review resumes in a new process with
``chronoeval build --thread ID --answer ok``; completed steps are not run again.
"""

from __future__ import annotations

import json
import sys
import uuid
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from graph.cli_base import app, errors, register_user_errors
from graph.console import err, out, print_error, print_ok
from tools.bundle.files import INCIDENTS, MANIFEST, QA, REPORT
from tools.describe.errors import DescriptionError

PAUSED = 0  # a build paused at review is not an error: it waits for --thread ID --answer


class BuildError(ValueError):
    """A build the user asked for in a way that cannot run (exit 2)."""


register_user_errors(BuildError, DescriptionError)


def sessions_path(explicit: Path | None = None) -> Path:
    """Where build/chat sessions are checkpointed."""
    if explicit is not None:
        return explicit
    from graph.paths import sessions_file

    return sessions_file()


def open_checkpointer(path: Path):
    """A ``SqliteSaver`` on ``path`` (created with its folder)."""
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    path.parent.mkdir(parents=True, exist_ok=True)
    return SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))


def show_review(summary: dict[str, Any]) -> None:
    """The spec draft, as the domain expert reviews it."""
    from rich.table import Table

    out.print(f"\n[bold]Spec draft '{summary['name']}'[/] — horizon {summary['horizon']} from {summary['start']}")
    t = Table(show_header=True, header_style="bold")
    for col in ("entity", "count", "cadence", "states", "measurements", "attributes"):
        t.add_column(col)
    for item in summary.get("not_understood", []):
        out.print(f"  [yellow]not understood:[/] {item}")
    for e in summary["entities"]:
        t.add_row(e["name"], str(e["count"]), str(e["cadence"] or "events"), ", ".join(e["states"]),
                  ", ".join(e["measurements"]), ", ".join(e["attributes"]))
    out.print(t)
    for inc in summary["incidents"]:
        out.print(f"  incident: {inc}")
    plan = summary["query_plan"]
    out.print(f"  questions: {plan['n_questions']} ({', '.join(f'{k} {v:g}' for k, v in plan['mix'].items())})")


def ask(prompt: str) -> str | None:
    """One answer line from the user (None at end of input: nobody is there to answer)."""
    err.print(f"[bold]{prompt}[/]\n> ", end="")
    line = sys.stdin.readline()
    return None if line == "" else line.strip()


def print_result(state: dict[str, Any]) -> None:
    """The end-of-build summary: where the bundle is and what it holds."""
    bundle = Path(state["out"])
    manifest = json.loads((bundle / MANIFEST).read_text()) if (bundle / MANIFEST).is_file() else {}
    tables = manifest.get("tables", {})
    rows = ", ".join(f"{t} {v.get('rows', 0):,} rows" for t, v in tables.items())
    inc = json.loads((bundle / INCIDENTS).read_text())["incidents"] if (bundle / INCIDENTS).is_file() else []
    qa = bundle / QA
    variants = sum('"variant_of": "q' in line for line in qa.read_text().splitlines()) if qa.is_file() else 0
    print_ok(f"built {bundle}: {rows}; {len(inc)} incident(s); {state.get('questions', 0)} questions and "
             f"{variants} paraphrases (qa.jsonl); decisions in report.md")
    for item in state.get("not_understood", []):
        print_error(item, prefix="warning: not understood: ")
    short = {f: n for f, n in (state.get("shortfall") or {}).items() if n}
    if short:  # a suite smaller than its plan is said, not only logged (the plan's quotas: report.md, "Questions")
        print_error(f"{sum(short.values())} question(s) short of the plan: "
                    + ", ".join(f"{n} {f}" for f, n in sorted(short.items()))
                    + "; the data had too few candidates that pass every filter (report.md, 'Questions')",
                    prefix="warning: ")
    if qa.is_file():
        from graph.console import err

        err.print(f"next: read {bundle / REPORT}, then try an agent: chronoeval eval {bundle} --agent naive "
                  f"-o runs/naive (README.md, 'Ten minutes with the demo')", highlight=False, soft_wrap=True)


@app.command()
def build(
    description: Annotated[str | None, typer.Argument(metavar="DESCRIPTION",
                                                      help="The domain in plain language.")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Bundle directory to create.")] = None,
    pack: Annotated[str | None, typer.Option("--pack", help="Start from a built-in pack.")] = None,
    sample: Annotated[list[Path] | None, typer.Option("--sample", help="Sample table (CSV/Parquet); repeatable.")] = None,
    ddl: Annotated[Path | None, typer.Option("--ddl", help="SQL DDL of the tables.")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Skip the review point (approve the draft).")] = False,
    thread: Annotated[str | None, typer.Option("--thread", help="Resume (or name) a build session.")] = None,
    answer: Annotated[str | None, typer.Option("--answer", help="The answer to a paused review ('ok' or an edit).")] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the world and of the questions.")] = 0,
    n: Annotated[int | None, typer.Option("--n", min=1, help="Canonical questions (default: the query plan).")] = None,
    sessions: Annotated[Path | None, typer.Option("--sessions", help="Session store (SQLite).")] = None,
    world_only: Annotated[bool, typer.Option("--world-only", help="Build the world only (spec, data, incidents, "
                                             "checks); add questions later with 'chronoeval queries'.")] = False,
    memory: Annotated[bool, typer.Option("--memory/--no-memory", help="Retrieve packs, patterns and catalog entries "
                                         "from the RAG memory ($CHRONOEVAL_HOME/memory), and record notes.")] = True,
    use_notes: Annotated[bool, typer.Option("--use-notes", help="Let experience notes in the memory (e.g. the "
                                            "templates past evals failed) steer the questions; the notes used are "
                                            "recorded in report.md and manifest.json. Off: the build depends only on "
                                            "its inputs and seed.")] = False,
) -> None:
    """Build a whole eval: infer the domain, write and review the spec, generate data with incidents,
    check it, synthesize questions. Offline by default; uses CHRONOEVAL_MODEL when set."""
    from langgraph.types import Command

    with errors():
        cp = open_checkpointer(sessions_path(sessions))
        from agents.context import BuildContext
        from agents.models import get_chat_model
        from graph.builder import RECURSION_LIMIT, build_graph
        from graph.cli_verify import report_stale
        from graph.console import RichProgress
        from tools.bundle import output_lock

        graph = build_graph(checkpointer=cp)
        tid = thread or uuid.uuid4().hex[:8]
        config = {"configurable": {"thread_id": tid}, "recursion_limit": RECURSION_LIMIT}
        saved = graph.get_state(config)
        if saved.next:  # a paused session: resume it
            inp: Any = Command(resume=answer) if answer is not None else None
            err.print(f"resuming build session {tid}")
        else:
            if saved.values.get("finished") and thread:
                raise BuildError(f"build session {tid} is already finished ({saved.values.get('out')}); "
                                 "start a new one without --thread")
            if not (description or pack or sample or ddl):
                raise BuildError("say what to build: a DESCRIPTION, --pack NAME, --sample FILE or --ddl FILE")
            if output is None:
                raise BuildError("give the bundle directory with -o OUT")
            if output.exists() and (not output.is_dir() or any(output.iterdir())):
                raise FileExistsError(f"{output} already exists; choose another -o path")
            inp = {"request": description or "", "pack": pack, "samples": [str(s) for s in sample or []],
                   "ddl": str(ddl) if ddl else None, "out": str(output), "iterations": 0, "stale": [],
                   "world_only": world_only}
            err.print(f"build session {tid} (resume with --thread {tid})")
        mem = None
        if use_notes and not memory:
            raise BuildError("--use-notes reads the notes from the memory; drop --no-memory")
        if memory:
            from graph.cli_memory import open_memory

            mem = open_memory()
        ctx = BuildContext(model=get_chat_model(), auto_approve=yes, seed=seed, n_questions=n, memory=mem,
                           use_notes=use_notes,
                           on_step=lambda d: err.print(f"  {d['decision']}  [dim]{d['reason']}[/]"))
        while True:
            if inp is None:
                reply = _review_reply(graph.get_state(config))
                if reply is None:
                    err.print(f"paused for review; resume with: chronoeval build --thread {tid} --answer ok")
                    raise typer.Exit(PAUSED)
                inp = Command(resume=reply)
            target = output or graph.get_state(config).values.get("out")
            with output_lock(Path(target)) if target else nullcontext() as lock, RichProgress() as progress:
                report_stale(lock.stale_removed if lock else [])  # one writer of OUT at a time
                result = graph.invoke(inp, config, context=replace(ctx, progress=progress))
            if "__interrupt__" not in result:
                break
            inp = None
        if result.get("error"):
            if result.get("error_code") == 3:
                print_error(result["error"])
                raise typer.Exit(3)
            raise RuntimeError(result["error"])
        print_result(result)


def _review_reply(snapshot) -> str | None:
    """Show the pending review and read the answer (None when stdin has nothing to give)."""
    pending = [i.value for t in snapshot.tasks for i in t.interrupts]
    if not pending:
        return ""
    show_review(pending[0]["summary"])
    return ask(pending[0]["prompt"])
