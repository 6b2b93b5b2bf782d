"""What ``chronoeval eval`` reads and writes around the run: the suite records of a bundle, the
agent's environment and key, the summary table, and the experience notes of a finished run."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from tools.bundle.files import MANIFEST, QA
from tools.harness.context import HarnessError


def suite_records(bundle: Path) -> list[dict]:
    """The suite of ``bundle`` as plain records (a user error when there is none)."""
    from tools.queries.record import load_suite

    qa = Path(bundle) / QA
    if not Path(bundle).is_dir():
        raise HarnessError(f"{bundle}: no such bundle directory; build one first (chronoeval build "
                           f"\"<description>\" -o {bundle}, or chronoeval generate SPEC -o {bundle}), or check the path")
    if not (Path(bundle) / MANIFEST).is_file():
        raise HarnessError(f"{bundle} is not a chronoeval bundle (no manifest.json); give the directory a "
                           "chronoeval build or generate wrote")
    if not qa.is_file():
        raise HarnessError(f"{qa} not found; make the question suite first: chronoeval queries {bundle}")
    try:
        return [r.model_dump() for r in load_suite(qa)]
    except ValueError as exc:
        raise HarnessError(f"{exc}; regenerate it with chronoeval queries {bundle}") from None


def pg_context_dsn(dsn: str, schema: str) -> str:
    from psycopg.conninfo import make_conninfo

    return make_conninfo(dsn, options=f"-c search_path={schema}")


def passed_agent_env(passed: list[str] | None) -> tuple[dict[str, str], list[str]]:
    """The agent's environment: the scrubbed basics plus each ``--agent-env NAME`` (taken from ours)
    or ``NAME=VALUE``; and the names passed (recorded in run.json, never the values)."""
    from tools.harness.sandbox import agent_environment

    extra: dict[str, str] = {}
    for item in passed or []:
        name, eq, value = item.partition("=")
        if not name.isidentifier():
            raise HarnessError(f"--agent-env {item!r}: give NAME or NAME=VALUE with a variable name")
        if not eq:
            if name not in os.environ:
                raise HarnessError(f"--agent-env {name}: {name} is not set in this environment; set it or pass "
                                   f"--agent-env {name}=VALUE")
            value = os.environ[name]
        extra[name] = value
    return agent_environment(os.environ, extra), sorted(extra)


def agent_key(name: str | None) -> str:
    """The Bearer token for an http: agent: only the variable the user named (--agent-key-env)."""
    if not name:
        return ""
    if not os.environ.get(name):
        raise HarnessError(f"--agent-key-env {name}: {name} is not set (or empty) in this environment")
    return os.environ[name]


NOTHING_ANSWERED = 5


def fail_when_nothing_answered(run: Path, summary: dict) -> None:
    """Exit 5 with the first error when every answer was a runtime error: the agent never ran
    properly (a missing program, a crash, an unreachable server), so the scores mean nothing."""
    rate = summary.get("runtime_error_rate")
    if rate is None or rate < 1.0:
        return
    from graph.console import print_error
    from tools.harness import load_run

    _, _, rows = load_run(run)
    first = next((r.get("error") for r in rows if r.get("error")), None) or "no error text recorded"
    print_error(f"every answer was a runtime error, so the agent was never really evaluated; the first error: "
                f"{str(first)[:500]}. Fix the agent (try it on one question), then re-run with --force")
    raise typer.Exit(NOTHING_ANSWERED)


def remember_failures(run: Path) -> None:
    """Experience notes (agent_failure) for the templates the agent mostly failed. Runtime errors
    (the agent crashed, timed out, could not be reached or gave no answer) are the infrastructure's
    failures, not wrong readings of the data: they teach nothing about the questions and are left
    out; a run made only of them records nothing."""
    from graph.cli_memory import open_memory
    from graph.console import err
    from knowledge.documents import ExperienceNote
    from tools.harness import infrastructure_error, load_run, summarize
    from tools.harness.metrics import failure_lessons

    meta, records, rows = load_run(run)
    real = [r for r in rows if r.get("label") != "runtime_error"]
    if len(real) < len(rows):
        infra = sum(1 for r in rows if r.get("label") == "runtime_error" and infrastructure_error(r.get("error")))
        why = f", {infra} of them connection, authentication or quota" if infra else ""
        err.print(f"note: {len(rows) - len(real)} answer(s) were runtime errors (crash, timeout, no answer{why}); "
                  "they are not recorded as experience notes")
    lessons = failure_lessons(summarize(records, real, meta))
    if not lessons:
        return
    try:
        mem = open_memory()
        for template, text in lessons:
            mem.remember(ExperienceNote(kind="agent_failure", text=text, tags=[template], source=str(run)))
    except Exception as exc:  # the run's results are written; a memory problem must not lose them
        err.print(f"warning: experience notes not recorded ({type(exc).__name__}: {exc})")
        return
    err.print(f"recorded {len(lessons)} experience note(s) on {', '.join(t for t, _ in lessons[:5])}"
              f"{', …' if len(lessons) > 5 else ''}: builds made with --use-notes favour these templates")


def print_summary(s: dict) -> None:
    from rich.table import Table

    from graph.console import out

    def pct(v):
        return "n/a" if v is None else f"{v:.1%}"

    t = Table(title=f"{s.get('agent')}: {s['questions']} questions × {s['trials']} trials")
    t.add_column("metric")
    t.add_column("value", justify="right")
    t.add_row("accuracy", pct(s["accuracy"]))
    for f, v in s["by_family"].items():
        t.add_row(f"  {f}", pct(v["accuracy"]))
    for k, v in s["pass_at_k"].items():
        t.add_row(f"pass@{k}", pct(v))
    t.add_row("self-consistency", pct(s["self_consistency"]))
    t.add_row("naive-trap rate", pct(s["naive_trap_rate"]))
    t.add_row("runtime errors", pct(s["runtime_error_rate"]))
    if s["undecided"]:
        t.add_row("undecided grades", str(len(s["undecided"])))
    out.print(t)
