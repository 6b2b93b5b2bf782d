"""`chronoeval export`: a bundle's suite to eval platforms' formats, its tables to CSV/Parquet files,
or into PostgreSQL (the formats: ``tools.export.FORMATS``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graph.cli_base import app, errors
from graph.cli_eval_io import suite_records
from tools.bundle.files import DATA_DB, EXPORTS_DIR
from tools.export import FORMATS
from tools.harness.context import HarnessError


@app.command()
def export(
    bundle: Annotated[Path, typer.Argument(metavar="OUT", help="A bundle directory.")],
    fmt: Annotated[str, typer.Option("--format", help=" | ".join(FORMATS))],
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
        from tools.bundle.atomic import atomic_output_dir
        from tools.export import SUITE_FORMATS, export_bundle, load_postgres

        if fmt not in FORMATS:
            from tools.suggest import did_you_mean

            raise HarnessError(f"--format {fmt!r} is not one of {', '.join(FORMATS)}; {did_you_mean(fmt, FORMATS)}"
                               .rstrip("; "))
        if not (Path(bundle) / DATA_DB).is_file():
            raise HarnessError(f"{bundle} is not a chronoeval bundle (no data.duckdb); make one with chronoeval generate")
        verified(bundle)
        if fmt == "postgres":
            if not dsn:
                raise HarnessError("--format postgres needs --dsn postgresql://user@host:port/db")
            counts = load_postgres(bundle, dsn, schema=pg_schema, replace=force)
            print_ok(f"{sum(counts.values()):,} rows in {len(counts)} tables → {pg_schema} at {dsn}")
            return
        records = suite_records(bundle) if fmt in SUITE_FORMATS else None
        dest = output or Path(bundle) / EXPORTS_DIR / fmt
        with output_lock(dest) as lock, atomic_output_dir(dest, force=force) as tmp:
            report_stale(lock.stale_removed)
            files = export_bundle(bundle, tmp, fmt, records)
        print_ok(f"{len(files)} file(s) → {dest}: " + ", ".join(p.name for p in files))
