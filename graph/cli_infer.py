"""``chronoeval infer FILE... [--ddl schema.sql] -o spec.yaml [--report OUT.md]``: fit a spec from sample
tables (CSV/Parquet, one per table) and/or SQL DDL, print the detected roles, write the commented spec
and a report with the fidelity table. Bad input exits 2 with one message naming the file and column."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graph.cli_base import app, errors, register_user_errors
from graph.console import RichProgress, err, out, print_ok


def _roles_table(result):
    from rich import box
    from rich.table import Table

    table = Table(title="detected roles", box=box.SIMPLE_HEAD, title_justify="left")
    for col in ("table", "column", "role", "kind", "distinct", "missing"):
        table.add_column(col, justify="right" if col in ("distinct", "missing") else "left")
    for p in result.profiles:
        for c in p.columns.values():
            table.add_row(p.name, c.name, c.role, c.kind, str(c.distinct), f"{c.missing:.1%}")
    return table


def _tables_table(result):
    from rich import box
    from rich.table import Table

    from tools.common.durations import format_duration

    table = Table(title="tables", box=box.SIMPLE_HEAD, title_justify="left")
    for col in ("table", "rows", "key", "entities", "rows are", "cadence", "missing rows"):
        table.add_column(col, justify="right" if col in ("rows", "entities", "missing rows") else "left")
    kinds = {"periodic": "periodic metrics", "on_transition": "events"}
    for p in result.profiles:
        table.add_row(p.name, str(p.table.rows), " + ".join(p.keys) or "(none)", str(p.entities),
                      kinds.get(p.emission, "one per entity"),
                      (format_duration(p.cadence) + (f" (+{format_duration(p.jitter)} jitter)" if p.jitter else ""))
                      if p.cadence else "", f"{p.missing_rate:.1%}" if p.emission else "")
    return table


def _check_output(path: Path, force: bool, what: str) -> None:
    from tools.infer import InferError

    if path.is_dir():
        raise InferError(str(path), f"is a directory; give a {what} file path")
    if path.exists() and not force:
        raise InferError(str(path), "already exists; choose another path or pass --force to replace it")


@app.command()
def infer(
    output: Annotated[Path, typer.Option("--output", "-o", help="Spec YAML to write.")],
    files: Annotated[list[Path] | None, typer.Argument(
        metavar="FILE", help="Sample tables: CSV, TSV or Parquet, one per table (the file stem names it).")] = None,
    ddl: Annotated[Path | None, typer.Option("--ddl", help="SQL DDL (CREATE TABLE ...) for tables without samples.")] = None,
    report: Annotated[Path | None, typer.Option("--report", help="Write the inference report (markdown) here.")] = None,
    name: Annotated[str, typer.Option("--name", help="Spec name.")] = "inferred",
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the spec and of the fidelity regeneration.")] = 0,
    fidelity: Annotated[bool, typer.Option("--fidelity/--no-fidelity", help="Regenerate and compare (report).")] = True,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing output files.")] = False,
) -> None:
    """Fit a spec (roles, keys, relations, cadence, distributions, state machine, measurement models) from
    sample tables and/or DDL; write it with provenance comments, and a fidelity report."""
    from tools.bundle.atomic import atomic_write_text
    from tools.infer import InferError
    from tools.infer import infer as run_infer
    from tools.spec.io import parse_spec_text

    register_user_errors(InferError)
    with errors():
        _check_output(output, force, "spec YAML")
        if report is not None:
            _check_output(report, force, "report")
        steps = 3 * len(files or []) + int(fidelity and bool(files))  # read, profile, fit per table; fidelity
        steps = steps if err.is_terminal else 0  # a bar on a pipe or a log is noise
        with RichProgress() as bar:
            task = bar.start("inferring", steps) if steps else None
            done = [0]

            def step(msg: str) -> None:
                if done[0]:
                    bar.advance(task, 1)
                done[0] += 1
                bar.progress.update(task, description=msg)

            try:
                result, text = run_infer(list(files or []), ddl, name=name, seed=seed, fidelity=fidelity,
                                         progress=step if steps else None)
            except BaseException:
                if task is not None:  # the error message stands alone, without a half-drawn bar
                    bar.progress.live.transient = True
                    bar.progress.update(task, visible=False)
                raise
            if task is not None:
                bar.progress.update(task, completed=steps, description="inferred")
        parse_spec_text(result.yaml_text, str(output))  # the written file must load back
        output.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(output, result.yaml_text)
        if report is not None:
            report.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(report, text)
        if result.profiles:
            out.print(_tables_table(result))
            out.print(_roles_table(result))
        for r in result.relations:
            out.print(f"relation: {r}")
        for n in result.notes:
            out.print(f"note: {n}", soft_wrap=True)
        if result.guesses:
            out.print(f"{len(result.guesses)} part(s) are guesses from the DDL (listed in the report)")
        if result.fidelity:
            bad = [r for r in result.fidelity if not r.ok]
            out.print(f"fidelity: {len(result.fidelity) - len(bad)} of {len(result.fidelity)} checks pass"
                      + "".join(f"\n  over threshold: {r.table}.{r.column} {r.metric} {r.value:.3f} > {r.threshold}"
                                for r in bad))
        print_ok(f"wrote {output}" + (f" and {report}" if report else ""))
