"""The ``chronoeval`` command line: packs, init, validate, schema, generate, check.

User errors (a bad spec, an existing output directory, a missing file, a bad option value) print
one message that names the file/field/line and the fix, and exit with code 2; anything else is an
internal error (exit 1). A failed data-quality or pattern check exits with 3 (``generate`` keeps the
bundle; ``--allow-failed-checks`` turns that into a warning). ``--debug`` adds the traceback. Heavy
modules (the generator, DuckDB, pyarrow) are imported only by the commands that need them, so spec
errors are reported fast.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Annotated

import typer

from graph.cli_base import _State, app, errors
from graph.console import err, print_error, print_ok
from graph.spec_summary import spec_tables, weight_notes
from tools.common.families import EXTRA_FAMILIES


def _positive_scale(value: float) -> float:
    if not (math.isfinite(value) and value > 0):
        raise typer.BadParameter(f"must be a number > 0 (got {value}); 1 is the spec's own size, 0.1 a tenth")
    return value


@app.callback()
def _root(debug: Annotated[bool, typer.Option("--debug", help="Show full tracebacks on errors.")] = False) -> None:
    """Build evals for time-series data agents. Start with `chronoeval packs`."""
    _State.debug = debug


@app.command()
def packs() -> None:
    """List the built-in domain packs."""
    from graph.console import print_packs
    from knowledge.packs import list_packs, load_pack
    from tools.spec import SpecError

    with errors():
        rows = []
        for name in list_packs():
            try:
                spec = load_pack(name)
            except SpecError as exc:
                rows.append((name, "", "", "", f"invalid pack: {str(exc).splitlines()[-1].strip()}"))
                continue
            first = next((ln.strip() for ln in spec.description.splitlines() if ln.strip()), "")
            rows.append((name, ", ".join(e.name for e in spec.entities), ", ".join(spec_tables(spec)),
                         spec.horizon, first))
        if not rows:
            print_error("no built-in packs are installed (knowledge/packs/*.yaml is empty)")
            return
        print_packs(rows)


@app.command()
def init(
    pack: Annotated[str, typer.Option("--pack", "-p", help="Pack name (see `chronoeval packs`).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Where to write the spec YAML.")] = Path("spec.yaml"),
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Start a spec from a built-in pack: copies the pack's YAML (comments included) to -o."""
    from knowledge.packs import pack_path, unknown_pack

    with errors():
        source = pack_path(pack)
        if not source.is_file():
            raise unknown_pack(pack, empty="none")
        if output.exists() and (not force or output.is_dir()):
            what = "is a directory" if output.is_dir() else "already exists"
            raise FileExistsError(f"{output} {what}; choose another -o path"
                                  + ("" if output.is_dir() else " or pass --force to overwrite it"))
        text = source.read_text(encoding="utf-8")
        output.parent.mkdir(parents=True, exist_ok=True)
        from tools.bundle.atomic import atomic_write_text

        atomic_write_text(output, text)
        print_ok(f"wrote {output} from pack '{pack}'; edit it, then run `chronoeval validate {output}`")


@app.command()
def validate(
    spec_or_pack: Annotated[str, typer.Argument(metavar="SPEC_OR_PACK", help="A spec YAML path or a pack name.")],
) -> None:
    """Check a spec (or pack) and report every problem with its YAML path and line."""
    from knowledge.packs import resolve_spec

    with errors():
        spec = resolve_spec(spec_or_pack)
        n_e, n_t = len(spec.entities), len(spec_tables(spec))
        print_ok(f"{spec.name} — {n_e} entity type{'s' * (n_e != 1)}, {n_t} table{'s' * (n_t != 1)}")
        for note in weight_notes(spec):
            err.print(f"note: {note}")


@app.command()
def schema() -> None:
    """Print the JSON Schema of the spec."""
    from tools.spec import spec_json_schema

    with errors():
        typer.echo(json.dumps(spec_json_schema(), indent=2))


CHECKS_FAILED = 3


@app.command()
def generate(
    spec_or_pack: Annotated[str, typer.Argument(metavar="SPEC_OR_PACK", help="A spec YAML path or a pack name.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Bundle directory to create.")],
    seed: Annotated[int | None, typer.Option("--seed", min=0, help="Random seed (default: the spec's).")] = None,
    scale: Annotated[float, typer.Option("--scale", callback=_positive_scale,
                                         help="Multiply entity counts by this factor (> 0).")] = 1.0,
    force: Annotated[bool, typer.Option("--force", help="Replace OUT if it exists.")] = False,
    with_baseline: Annotated[bool, typer.Option(
        "--with-baseline", help="Also write the same world without incidents (data/<table>__baseline.parquet, "
                                "DuckDB schema `baseline`) for contrast questions.")] = False,
    allow_failed_checks: Annotated[bool, typer.Option(
        "--allow-failed-checks", help="Exit 0 even when a data-quality or pattern check fails.")] = False,
    engine: Annotated[str, typer.Option(
        "--engine", help="local (one process, data/<table>.parquet) or dask (shards as dask.distributed tasks, "
                         "data/<table>/part-NNNNN.parquet; same rows).")] = "local",
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="With --engine dask: address of a running dask scheduler (tcp://host:8786); "
                            "default: a LocalCluster on this machine.")] = None,
) -> None:
    """Generate the data bundle (spec.yaml, data/*.parquet, data.duckdb, incidents.json, manifest.json),
    then run the checks (checks.json, report.md, figures/). Exits 3 when a check fails."""
    from knowledge.packs import resolve_spec

    with errors():
        if engine not in ("local", "dask"):
            raise typer.BadParameter(f"--engine {engine!r}: use local or dask")
        if scheduler and engine != "dask":
            raise typer.BadParameter("--scheduler needs --engine dask")
        if engine == "dask":
            from graph.cli_base import register_user_errors
            from tools.generate.distributed import SchedulerUnreachable

            register_user_errors(SchedulerUnreachable)
        spec = resolve_spec(spec_or_pack)
        from graph.console import RichProgress, print_summary
        from tools.checks import check_bundle
        from tools.generate import generate_bundle

        url = re.sub(r"^([a-z][a-z0-9+.-]*):/(?!/)", r"\1://", str(output))  # Path folds "s3://" to "s3:/"
        from tools.generate.remote import is_url

        if is_url(url):  # an object store: parts written by the workers; check the fetched copy
            if engine != "dask":
                raise typer.BadParameter(f"-o {url}: an object-store output needs --engine dask")
            from tools.generate.remote import generate_to_url

            with RichProgress() as progress:
                summary = generate_to_url(spec, url, seed=seed, scale=scale, force=force, progress=progress,
                                          with_baseline=with_baseline, scheduler=scheduler)
            print_summary(summary)
            return
        found: list = []
        with RichProgress() as progress:
            summary = generate_bundle(spec, output, seed=seed, scale=scale, force=force, progress=progress,
                                      with_baseline=with_baseline, engine=engine, scheduler=scheduler,
                                      finalize=lambda tmp: found.extend(check_bundle(tmp)))
        print_summary(summary)
        from graph.cli_verify import report_stale

        report_stale(summary.stale_removed)
        _report_checks(found, output, allow_failed_checks)


def _run_checks(output: Path, allow_failed: bool, table: bool = False) -> None:
    from tools.checks import check_bundle

    with err.status("running checks"):
        checks = check_bundle(output)
    _report_checks(checks, output, allow_failed, table)


def _report_checks(checks: list, output: Path, allow_failed: bool, table: bool = False) -> None:
    from graph.console import print_check_summary, print_checks
    from tools.bundle.opened import open_bundle
    from tools.checks.run import explain_failures

    if table:
        print_checks(checks)
    print_check_summary(checks, output)
    if any(not c.passed for c in checks):
        b = open_bundle(output)
        incidents = b.incidents
        b.close()
        message = explain_failures(checks, output, incidents)
        if allow_failed:
            print_error(message, prefix="warning: ")
            return
        print_error(message)
        raise typer.Exit(CHECKS_FAILED)


@app.command()
def check(
    bundle: Annotated[Path, typer.Argument(metavar="OUT", help="A bundle directory made by `chronoeval generate`.")],
    memory_limit: Annotated[str | None, typer.Option(
        "--memory-limit", help="DuckDB memory limit (e.g. 4GB): bigger work spills to disk.")] = None,
) -> None:
    """Re-run the data-quality and pattern checks of a bundle; rewrites checks.json, report.md and
    figures/. Exits 3 when a check fails, 2 when OUT is not a bundle."""
    with errors():
        _memory_limit(memory_limit)
        from graph.cli_verify import bundle_writer
        from tools.bundle.opened import open_bundle

        open_bundle(bundle).close()
        with bundle_writer(bundle, content_only=True):  # it rewrites the report files
            _run_checks(bundle, allow_failed=False, table=True)


QUESTIONS_DISAGREE = 4


def _memory_limit(limit: str | None) -> None:
    from tools.bundle.layout import set_memory_limit

    try:
        set_memory_limit(limit)
    except ValueError as exc:
        raise typer.BadParameter(f"--memory-limit: {exc}") from None


@app.command()
def queries(
    bundle: Annotated[Path, typer.Argument(metavar="OUT", help="A bundle directory made by `chronoeval generate`.")],
    n: Annotated[int | None, typer.Option("--n", min=1, help="Number of canonical questions "
                                          "(default: the spec's query plan, at least 12 per family).")] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed for choosing candidates.")] = 0,
    memory_limit: Annotated[str | None, typer.Option(
        "--memory-limit", help="DuckDB memory limit (e.g. 4GB): bigger work spills to disk.")] = None,
    holdout: Annotated[str | None, typer.Option(
        "--holdout", help="Hold the last part of every table back (e.g. 1d) in holdout/, out of what agents see; "
                          "needed by forecast questions. Default: nothing held back.")] = None,
    family: Annotated[list[str] | None, typer.Option(
        "--family", help=f"Add questions of an extra family ({', '.join(EXTRA_FAMILIES)}); repeatable.")] = None,
) -> None:
    """Synthesize the question suite of a bundle: qa.jsonl (answers computed by pandas and SQL, which
    must agree) and the Questions section of report.md. Exits 4 if the two executors ever disagree."""
    with errors():
        _memory_limit(memory_limit)
        from tools.bundle.opened import open_bundle

        open_bundle(bundle).close()
        from graph.cli_base import register_user_errors
        from graph.cli_verify import bundle_writer
        from graph.console import RichProgress, print_suite_summary
        from tools.queries.holdout import HoldoutError
        from tools.queries.suite import build_suite

        register_user_errors(HoldoutError)
        with bundle_writer(bundle), RichProgress() as progress:
            tick = progress.counter("synthesizing questions")
            suite = build_suite(bundle, n=n, seed=seed, progress=tick, holdout=holdout, families=family or ())
        print_suite_summary(suite, bundle)
        if suite.disagreements:
            print_error(f"{len(suite.disagreements)} candidate(s) got different answers from the pandas and SQL "
                        f"executors: a chronoeval bug. They were dropped and are listed in {bundle / 'report.md'} "
                        "(Executor disagreements); please report them.")
            raise typer.Exit(QUESTIONS_DISAGREE)


# Command modules register on `app` when imported; keep them after the commands above so `--help`
# lists the core pipeline first.
from graph import cli_commands  # noqa: E402,F401


def main() -> None:
    """Console-script entry point (``chronoeval``)."""
    app(prog_name="chronoeval")


if __name__ == "__main__":
    main()
