"""`chronoeval eval | report | compare | export`: run agents-under-test on a suite, report, compare
runs side by side, and export a bundle to eval platforms, files or PostgreSQL."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from graph.cli_base import app, errors, register_user_errors
from graph.cli_eval_io import (
    agent_key,
    fail_when_nothing_answered,
    passed_agent_env,
    pg_context_dsn,
    print_summary,
    remember_failures,
    suite_records,
)
from tools.bundle.files import REPORT
from tools.harness.agent_kinds import agent_help
from tools.harness.backends import backend_names, get_backend
from tools.harness.context import HarnessError
from tools.harness.reference import REFERENCE_AGENTS

register_user_errors(HarnessError)

LLM_SQL = "llm-sql"  # the CLI's own built-in agent (a model writing SQL), beside the reference agents


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


@app.command("eval")
def eval_(
    bundle: Annotated[Path, typer.Argument(metavar="OUT", help="A bundle with qa.jsonl (chronoeval queries OUT).")],
    agent: Annotated[str, typer.Option("--agent", help=agent_help([*REFERENCE_AGENTS, LLM_SQL]))],
    output: Annotated[Path, typer.Option("-o", "--output", help="Run directory (re-run the same command to resume).")],
    trials: Annotated[int, typer.Option("--trials", min=1, help="Answers per question.")] = 3,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Agent calls in flight.")] = 8,
    timeout: Annotated[float, typer.Option("--timeout", min=0.001, help="Seconds per answer, in total (an agent "
                                           "process and everything it started is killed then).")] = 60.0,
    backend: Annotated[str, typer.Option("--backend", help="Where the agent reads the data: "
                                         f"{' | '.join(backend_names())}.")] = "duckdb",
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

        if backend not in backend_names():
            from tools.suggest import did_you_mean

            raise HarnessError(f"--backend {backend!r} is not one of {', '.join(backend_names())}; "
                               f"{did_you_mean(backend, backend_names())}".rstrip("; "))
        get_backend(backend, dsn)  # a backend that needs --dsn says so
        from tools.harness.prompting import check_modes
        from tools.queries.conventions import read_preamble

        try:
            modes = check_modes(context)
        except ValueError as exc:
            raise HarnessError(str(exc)) from None
        env, env_names = passed_agent_env(agent_env)
        api_key = agent_key(agent_key_env)
        records = suite_records(bundle)
        preamble = read_preamble(bundle)
        with output_lock(output):
            verify_bundle(bundle)
            ctx_dsn = None
            if backend == "postgres":
                from tools.export import load_postgres

                load_postgres(bundle, dsn, schema=pg_schema, replace=True)  # type: ignore[arg-type]
                ctx_dsn = pg_context_dsn(dsn, pg_schema)  # type: ignore[arg-type]
            builtins = {**reference_agents(records, bundle), LLM_SQL: _llm_sql_factory()}
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
        print_summary(summary)
        print_ok(f"{res.asked} answers asked, {res.kept} kept from before → {output / REPORT}, "
                 f"{output / 'report.html'}, {output / 'summary.json'}")
        if memory:
            remember_failures(output)
        fail_when_nothing_answered(output, summary)


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
        print_summary(s)
        print_ok(f"{run / REPORT}, {run / 'report.html'}")


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
        from tools.bundle.atomic import atomic_write_text
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
