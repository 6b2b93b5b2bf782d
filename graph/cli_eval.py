"""`chronoeval eval | report | compare | export`: run agents-under-test on a suite, report, compare
runs side by side, and export a bundle to eval platforms, files or PostgreSQL."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from graph.cli_base import app, errors, register_user_errors
from tools.harness.context import HarnessError

register_user_errors(HarnessError)

BUILTIN_AGENTS = ("oracle", "naive", "llm-sql")


def _records(bundle: Path) -> list[dict]:
    """The suite of ``bundle`` as plain records (a user error when there is none)."""
    from tools.queries.record import load_suite

    qa = Path(bundle) / "qa.jsonl"
    if not Path(bundle).is_dir():
        raise HarnessError(f"{bundle}: no such bundle directory; build one first (chronoeval build "
                           f"\"<description>\" -o {bundle}, or chronoeval generate SPEC -o {bundle}), or check the path")
    if not (Path(bundle) / "manifest.json").is_file():
        raise HarnessError(f"{bundle} is not a chronoeval bundle (no manifest.json); give the directory a "
                           "chronoeval build or generate wrote")
    if not qa.is_file():
        raise HarnessError(f"{qa} not found; make the question suite first: chronoeval queries {bundle}")
    try:
        return [r.model_dump() for r in load_suite(qa)]
    except ValueError as exc:
        raise HarnessError(f"{exc}; regenerate it with chronoeval queries {bundle}") from None


def _judge():
    """The LLM judge for cases the rules cannot decide, only when CHRONOEVAL_MODEL is set."""
    if not os.environ.get("CHRONOEVAL_MODEL"):
        return None
    from functools import partial

    model = _chat_model()
    if model is None:
        return None
    from agents.judge import grade_undecided

    return partial(grade_undecided, model=model)


def _chat_model():
    """The configured chat model (agents.models), or None offline."""
    try:
        from agents.models import get_chat_model
    except ImportError:  # the LLM resolution module is not installed in this checkout
        return None
    try:
        return get_chat_model()
    except ValueError as exc:  # LLMConfigError: CHRONOEVAL_MODEL names a model that cannot be set up
        raise HarnessError(f"CHRONOEVAL_MODEL: {exc}") from None


def _llm_sql_factory():
    def build():
        model = _chat_model()
        if model is None:
            raise HarnessError("--agent llm-sql needs an LLM: set CHRONOEVAL_MODEL (e.g. openai:gpt-4.1-mini; "
                               "OPENAI_BASE_URL + OPENAI_API_KEY for any OpenAI-compatible server)")
        from agents.sql_agent import build_sql_agent

        return build_sql_agent(model)
    return build


def _pg_context_dsn(dsn: str, schema: str) -> str:
    from psycopg.conninfo import make_conninfo

    return make_conninfo(dsn, options=f"-c search_path={schema}")


def _agent_env(passed: list[str] | None) -> tuple[dict[str, str], list[str]]:
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


def _agent_key(name: str | None) -> str:
    """The Bearer token for an http: agent: only the variable the user named (--agent-key-env)."""
    if not name:
        return ""
    if not os.environ.get(name):
        raise HarnessError(f"--agent-key-env {name}: {name} is not set (or empty) in this environment")
    return os.environ[name]


@app.command("eval")
def eval_(
    bundle: Annotated[Path, typer.Argument(metavar="OUT", help="A bundle with qa.jsonl (chronoeval queries OUT).")],
    agent: Annotated[str, typer.Option("--agent", help="oracle | naive | llm-sql | python:module:function | "
                                       "http:URL (OpenAI-compatible) | cmd:\"command\"")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Run directory (re-run the same command to resume).")],
    trials: Annotated[int, typer.Option("--trials", min=1, help="Answers per question.")] = 3,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Agent calls in flight.")] = 8,
    timeout: Annotated[float, typer.Option("--timeout", min=0.001, help="Seconds per answer, in total (an agent "
                                           "process and everything it started is killed then).")] = 60.0,
    backend: Annotated[str, typer.Option("--backend", help="Where the agent reads the data: duckdb | parquet | "
                                         "csv | postgres.")] = "duckdb",
    dsn: Annotated[str | None, typer.Option("--dsn", help="PostgreSQL DSN (--backend postgres): the tables are "
                                            "loaded there first.")] = None,
    pg_schema: Annotated[str, typer.Option("--pg-schema", help="PostgreSQL schema for the tables.")] = "chronoeval",
    data_dir: Annotated[Path | None, typer.Option("--data-dir", help="Directory of CSV/Parquet tables to copy for "
                                                  "the agent (default: the bundle's).")] = None,
    model: Annotated[str, typer.Option("--model", help="Model name sent to an http: agent.")] = "default",
    agent_env: Annotated[list[str] | None, typer.Option("--agent-env", help="Pass NAME (from this environment) or "
                                                        "NAME=VALUE to cmd:/python: agents; repeatable. Nothing "
                                                        "else of the evaluator's environment reaches them.")] = None,
    agent_key_env: Annotated[str | None, typer.Option("--agent-key-env", help="Send the value of this variable as "
                                                      "the Bearer token to an http: agent (none by default).")] = None,
    max_reply: Annotated[int, typer.Option("--max-reply", min=1, help="Largest answer in bytes; a larger one is a "
                                           "runtime error.")] = 1_000_000,
    force: Annotated[bool, typer.Option("--force", help="Discard an existing run in -o and start over.")] = False,
    context: Annotated[list[str] | None, typer.Option("--context", help="What the agent reads with each question: "
                                                      "none | preamble (the suite's conventions, suite.json) | "
                                                      "evidence (the question's definitions) | both (default). "
                                                      "Repeat to run several modes; the report compares "
                                                      "them.")] = None,
    memory: Annotated[bool, typer.Option("--memory/--no-memory", help="Record the templates the agent mostly "
                                         "failed as experience notes (the next build favours them).")] = True,
) -> None:
    """Ask every question of the suite TRIALS times, grade the answers as they arrive
    (RUN/responses.jsonl), then write RUN/summary.json, report.md and report.html. The agent works in
    a private directory with a copy of the tables only; the bundle is verified before and after."""
    with errors():
        from graph.console import RichProgress, print_ok
        from tools.bundle import BundleIntegrityError, output_lock, verify_bundle
        from tools.harness import agent_session, reference_agents, run_suite, write_report

        if backend not in ("duckdb", "parquet", "csv", "postgres"):
            from tools.suggest import did_you_mean

            raise HarnessError(f"--backend {backend!r} is not one of duckdb, parquet, csv, postgres; "
                               f"{did_you_mean(backend, ('duckdb', 'parquet', 'csv', 'postgres'))}".rstrip("; "))
        if backend == "postgres" and not dsn:
            raise HarnessError("--backend postgres needs --dsn postgresql://user@host:port/db")
        from tools.harness.prompting import check_modes
        from tools.queries.conventions import read_preamble

        try:
            modes = check_modes(context)
        except ValueError as exc:
            raise HarnessError(str(exc)) from None
        env, env_names = _agent_env(agent_env)
        api_key = _agent_key(agent_key_env)
        records = _records(bundle)
        preamble = read_preamble(bundle)
        with output_lock(output):
            verify_bundle(bundle)
            ctx_dsn = None
            if backend == "postgres":
                from tools.export import load_postgres

                load_postgres(bundle, dsn, schema=pg_schema, replace=True)  # type: ignore[arg-type]
                ctx_dsn = _pg_context_dsn(dsn, pg_schema)  # type: ignore[arg-type]
            builtins = {**reference_agents(records, bundle), "llm-sql": _llm_sql_factory()}
            judge = _judge()
            meta = {"agent": agent, "bundle": str(Path(bundle).resolve()), "backend": backend,
                    "agent_env": env_names, "max_reply": max_reply, "contexts": list(modes)}
            try:
                with agent_session(bundle, agent, backend=backend, data_dir=data_dir, dsn=ctx_dsn,  # type: ignore[arg-type]
                                   timeout=timeout, model=model, api_key=api_key, env=env, max_reply=max_reply,
                                   builtins=builtins) as (fn, self_timed, context), RichProgress() as progress:
                    tick = progress.counter(f"asking {agent}")
                    res = run_suite(records, fn, context, output, trials=trials, concurrency=concurrency,
                                    timeout=timeout, self_timed=self_timed, judge=judge, meta=meta, force=force,
                                    max_reply=max_reply, on_answer=tick, contexts=modes, preamble=preamble)
            except KeyboardInterrupt:
                from graph.console import print_error

                print_error(f"interrupted: the answers so far are in {output / 'responses.jsonl'}; re-run the "
                            "same command to resume")
                raise typer.Exit(130) from None
            try:
                verify_bundle(bundle, full=True)
            except BundleIntegrityError as exc:
                raise BundleIntegrityError(f"the bundle changed while the agent ran, so the answers in {output} "
                                           f"cannot be trusted (no report written): {exc}") from None
            summary = write_report(output)
        _print_summary(summary)
        print_ok(f"{res.asked} answers asked, {res.kept} kept from before → {output / 'report.md'}, "
                 f"{output / 'report.html'}, {output / 'summary.json'}")
        if memory:
            _remember_failures(output)
        _fail_when_nothing_answered(output, summary)


NOTHING_ANSWERED = 5


def _fail_when_nothing_answered(run: Path, summary: dict) -> None:
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


def _remember_failures(run: Path) -> None:
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


def _print_summary(s: dict) -> None:
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


@app.command()
def report(
    run: Annotated[Path, typer.Argument(metavar="RUN", help="A run directory made by chronoeval eval.")],
    regrade: Annotated[bool, typer.Option("--regrade", help="Grade the recorded answers again (current grader; "
                                          "the judge when CHRONOEVAL_MODEL is set).")] = False,
) -> None:
    """Recompute RUN/summary.json and rewrite report.md, report.html and the figures."""
    with errors():
        from graph.console import print_ok
        from tools.bundle import output_lock
        from tools.harness import load_run, write_report
        from tools.harness.runner import regrade as regrade_run

        load_run(run)
        with output_lock(run):  # an eval still writing this run directory holds it
            if regrade:
                changed = regrade_run(run, judge=_judge())
                print_ok(f"regraded {run / 'responses.jsonl'}: {changed} label(s) changed")
            s = write_report(run)
        _print_summary(s)
        print_ok(f"{run / 'report.md'}, {run / 'report.html'}")


@app.command()
def compare(
    runs: Annotated[list[Path], typer.Argument(metavar="RUN...", help="Two or more run directories.")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Also write the table to this file "
                                                "(markdown) and the page beside it (same name, .html).")] = None,
) -> None:
    """Put several runs side by side (accuracy by family and template, pass@k, consistency,
    naive-trap rate); with -o, also as markdown and as an HTML page."""
    with errors():
        from graph.console import out, print_ok
        from tools.generate.atomic import atomic_write_text
        from tools.harness import compare_runs
        from tools.harness.report import compare_html

        table = compare_runs(runs)
        out.print(table, markup=False, soft_wrap=True)
        if output:
            page = output.with_suffix(".html")
            if output.suffix.lower() not in (".html", ".htm"):
                atomic_write_text(output, table)
            atomic_write_text(page, compare_html(runs))
            print_ok(f"{output if output != page else ''}{' and ' if output != page else ''}{page}")


@app.command()
def export(
    bundle: Annotated[Path, typer.Argument(metavar="OUT", help="A bundle directory.")],
    fmt: Annotated[str, typer.Option("--format", help="inspect | langsmith | opik | promptfoo | openai-evals | "
                                     "genie | csv | parquet | postgres")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Directory to write (default "
                                                "OUT/exports/FORMAT).")] = None,
    dsn: Annotated[str | None, typer.Option("--dsn", help="PostgreSQL DSN for --format postgres.")] = None,
    pg_schema: Annotated[str, typer.Option("--pg-schema", help="PostgreSQL schema.")] = "public",
    force: Annotated[bool, typer.Option("--force", help="Replace an existing output directory / tables.")] = False,
) -> None:
    """Export the suite to an eval platform's format, the tables to CSV/Parquet, or load them into PostgreSQL."""
    with errors():
        from graph.cli_verify import report_stale, verified
        from graph.console import print_ok
        from tools.bundle import output_lock
        from tools.export import FORMATS, SUITE_FORMATS, export_bundle, load_postgres
        from tools.generate.atomic import atomic_output_dir

        if fmt not in FORMATS:
            from tools.suggest import did_you_mean

            raise HarnessError(f"--format {fmt!r} is not one of {', '.join(FORMATS)}; {did_you_mean(fmt, FORMATS)}"
                               .rstrip("; "))
        if not (Path(bundle) / "data.duckdb").is_file():
            raise HarnessError(f"{bundle} is not a chronoeval bundle (no data.duckdb); make one with chronoeval generate")
        verified(bundle)
        if fmt == "postgres":
            if not dsn:
                raise HarnessError("--format postgres needs --dsn postgresql://user@host:port/db")
            counts = load_postgres(bundle, dsn, schema=pg_schema, replace=force)
            print_ok(f"{sum(counts.values()):,} rows in {len(counts)} tables → {pg_schema} at {dsn}")
            return
        records = _records(bundle) if fmt in SUITE_FORMATS else None
        dest = output or Path(bundle) / "exports" / fmt
        with output_lock(dest) as lock, atomic_output_dir(dest, force=force) as tmp:
            report_stale(lock.stale_removed)
            files = export_bundle(bundle, tmp, fmt, records)
        print_ok(f"{len(files)} file(s) → {dest}: " + ", ".join(p.name for p in files))


