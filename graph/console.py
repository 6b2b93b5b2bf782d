"""Terminal rendering for the CLI: error messages, the generation progress bar, summary tables.

Everything goes through rich. Diagnostics (errors, progress) go to stderr, results to stdout, so
``chronoeval schema > schema.json`` and friends stay clean. Messages are printed without markup
and without wrapping: spec paths such as ``entities[0].states`` must reach the user verbatim.
"""

from __future__ import annotations

import textwrap
from datetime import datetime
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from tools.generate import BundleSummary

# Console() resolves sys.stdout / sys.stderr at write time, so test runners that swap them work.
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def print_error(message: str, prefix: str = "error: ") -> None:
    """One red-prefixed message on stderr, printed literally (no markup, no re-wrapping)."""
    err.print(Text(prefix, style="bold red") + Text(message), soft_wrap=True)


def print_ok(message: str) -> None:
    out.print(Text("ok: ", style="bold green") + Text(message), soft_wrap=True)


class RichProgress:
    """A ``tools.generate.ProgressSink`` drawing a rich progress bar with elapsed time and ETA."""

    def __init__(self, console: Console | None = None):
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console or err,
        )

        self.started = False

    def __enter__(self) -> RichProgress:
        return self

    def __exit__(self, *exc) -> None:
        if self.started:
            self.progress.stop()

    def start(self, description: str, total: int) -> object:
        if not self.started:  # draw nothing until there is work (an early error prints alone)
            self.progress.start()
            self.started = True
        return self.progress.add_task(description, total=max(int(total), 0))

    def advance(self, task: object, n: int) -> None:
        self.progress.advance(task, n)  # type: ignore[arg-type]

    def counter(self, description: str):
        """A ``(done, total)`` callback for work that reports cumulative counts: the bar starts at the
        first call (so nothing is drawn before there is work) and shows ``done`` of ``total``."""
        task = None

        def tick(done: int, total: int) -> None:
            nonlocal task
            if task is None:
                task = self.start(description, total)
            self.progress.update(task, completed=done)  # type: ignore[arg-type]

        return tick


def time_range(lo: str | None, hi: str | None) -> str:
    """``2026-01-01 00:00 → 01-07 23:45`` (the year is repeated only when it changes)."""
    if not lo or not hi:
        return "—"
    try:
        a, b = datetime.fromisoformat(lo), datetime.fromisoformat(hi)
    except ValueError:
        return f"{lo} → {hi}"
    return f"{a:%Y-%m-%d %H:%M} → {b:%m-%d %H:%M}" if a.year == b.year else f"{a:%Y-%m-%d %H:%M} → {b:%Y-%m-%d %H:%M}"


def print_summary(summary: BundleSummary) -> None:
    """The per-table summary of a generated bundle, then the totals."""
    table = Table(title=f"{summary.spec} → {summary.out}", title_justify="left", box=box.SIMPLE_HEAD,
                  show_edge=False, pad_edge=False)
    longest = max((len(t.name) for t in summary.tables), default=5)
    table.add_column("table", overflow="fold", min_width=min(longest, 20))
    table.add_column("kind", no_wrap=True)
    table.add_column("rows", justify="right")
    table.add_column("entities", justify="right")
    table.add_column("cols", justify="right")
    table.add_column("time range (UTC)", min_width=16)
    for t in summary.tables:
        span = time_range(t.time_min, t.time_max)
        table.add_row(t.name, t.kind, f"{t.rows:,}", f"{t.entities:,}", str(len(t.columns)), span)
    out.print(table)
    out.print(
        Text(f"{summary.total_rows:,} rows in {len(summary.tables)} tables, {summary.seconds:.2f}s "
             f"(seed {summary.seed}, scale {summary.scale:g}) → {summary.out}"),
        soft_wrap=True,
    )


def print_packs(rows: list[tuple[str, str, str, str, str]]) -> None:
    """The built-in packs: (name, entity types, tables, horizon, description)."""
    table = Table(title="built-in domain packs", title_justify="left")
    table.add_column("pack", no_wrap=True)
    table.add_column("entity types", min_width=12)
    table.add_column("tables", min_width=12)
    table.add_column("horizon", no_wrap=True)
    table.add_column("description")
    for *head, description in rows:
        table.add_row(*head, textwrap.shorten(description, width=72, placeholder=" …"))
    out.print(table)


def print_checks(checks: list) -> None:
    """Every check, failed first (status, kind, check, table, incident), then each failure's detail."""
    table = Table(title="checks (failed first)", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
                  pad_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    table.add_column("check", no_wrap=True)
    table.add_column("table", overflow="fold")
    table.add_column("incident", overflow="fold")
    ordered = sorted(checks, key=lambda c: (c.passed, c.kind != "pattern"))
    for c in ordered:
        mark = Text("FAIL", style="bold red") if not c.passed else Text("ok", style="green")
        table.add_row(mark, c.kind, c.name, c.table, c.incident or "")
    out.print(table)
    for c in ordered:
        if not c.passed:
            head = f"{c.incident} " if c.incident else ""
            out.print(Text(f"FAIL {head}{c.name} ({c.table}): ", style="bold red") + Text(c.detail), soft_wrap=True)


def print_check_summary(checks: list, where: object) -> None:
    """``checks: 40 passed, 2 failed (quality 0, pattern 2) → OUT/checks.json``."""
    bad = [c for c in checks if not c.passed]
    style = "bold red" if bad else "bold green"
    q = sum(1 for c in bad if c.kind == "quality")
    text = Text("checks: ", style=style) + Text(
        f"{len(checks) - len(bad)} passed, {len(bad)} failed (quality {q}, pattern {len(bad) - q}) → {where}/checks.json,"
        f" report.md")
    out.print(text, soft_wrap=True)


def print_suite_summary(suite, bundle) -> None:
    """Questions per family and template, then where qa.jsonl and the report are."""
    from collections import Counter

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("family", "questions", "templates", "contrast", "with naive answer"):
        table.add_column(col, justify="left" if col == "family" else "right")
    from tools.queries.registry import FAMILIES

    for fam in FAMILIES:
        recs = [r for r in suite.records if r["family"] == fam]
        if recs:
            table.add_row(fam, str(len(recs)), str(len({r["template"] for r in recs})),
                          str(sum(r["contrast"] for r in recs)), str(sum(r["naive_answer"] is not None for r in recs)))
    out.print(table)
    for fam, short in suite.shortfall.items():
        print_error(f"{fam}: {short} question(s) short of the quota of {suite.quotas[fam]} (too few candidates "
                    "passed the filters; report.md lists why)", prefix="warning: ")
    dropped = Counter(o.reason.split(":")[0] for o in suite.dropped)
    why = ", ".join(f"{n} {r}" for r, n in dropped.most_common())
    print_ok(f"{len(suite.records)} questions → {bundle}/qa.jsonl; {len(suite.dropped)} candidates dropped"
             f"{' (' + why + ')' if why else ''}; see report.md")
