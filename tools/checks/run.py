"""Run every check of a bundle and write checks.json (atomically)."""

from __future__ import annotations

import json
from pathlib import Path

from tools.bundle.atomic import atomic_write_text
from tools.bundle.files import CHECKS
from tools.bundle.opened import Bundle, open_bundle
from tools.checks.model import Check


def pattern_checks(b: Bundle, only: set[str] | None = None) -> list[Check]:
    """detectable + localized for every incident (or those in ``only``), cascade_order for every
    cascade child."""
    from tools.checks.cascade import cascade_order
    from tools.checks.kinds import arrival_checks, behavior_checks, missing_checks
    from tools.checks.patterns import make_ctx, value_checks
    from tools.patterns.registry import get_kind

    families = {"values": value_checks, "missing_rows": missing_checks, "behavior": behavior_checks,
                "arrivals": arrival_checks, "none": lambda ctx: ()}  # PatternKind.check names one
    _prefetch(b, only)
    out: list[Check] = []
    by_id = {r["id"]: r for r in b.incidents}
    for rec in b.incidents:
        if only is not None and rec["id"] not in only:
            continue
        ctx = make_ctx(b, rec)
        if not b.has(rec["table"]):
            out.append(Check(name="detectable", table=rec["table"], kind="pattern", passed=False, sql="",
                             detail=f"table {rec['table']} is not in data.duckdb", incident=rec["id"]))
            continue
        kind = get_kind(rec["kind"])
        family = kind.check(rec) if kind is not None else "values" if rec["keys"] else "none"
        out += list(families[family](ctx))
        if rec.get("root") and rec["root"] in by_id:
            out.append(cascade_order(b, rec, by_id[rec["root"]]))
    return out


def _prefetch(b: Bundle, only: set[str] | None) -> None:
    """One scan per table for the series the incidents' checks read (each incident's sample of
    affected entities and its unaffected peers, every measurement column), instead of one per check."""
    from tools.checks.model import MAX_AFFECTED, rec_key
    from tools.checks.patterns import make_ctx, peers
    from tools.checks.series import prefetch, spread

    wanted: dict[tuple[str, str, str, str], set[str]] = {}
    for rec in b.incidents:
        if (only is None or rec["id"] in only) and b.has(rec["table"]) and rec.get("timestamp_column"):
            ents = wanted.setdefault((rec["table"], rec_key(rec), rec["timestamp_column"], rec["entity_type"]), set())
            ents |= set(spread(sorted(rec["entities"]), MAX_AFFECTED)) | set(peers(make_ctx(b, rec)))
    for (table, id_col, ts_col, etype), ents in wanted.items():
        cols = set(b.columns(table))
        keys = [m.name for m in b.spec.entity(etype).measurements if m.name in cols]
        prefetch(b, table, id_col, ts_col, sorted(ents), keys)


def all_checks(b: Bundle) -> list[Check]:
    """The quality checks, then the pattern checks. They are independent, so the quality pass (mostly
    DuckDB scans, which release the GIL) runs on its own cursor in a second thread while the pattern
    checks (mostly numpy) run in this one; the result does not depend on the timing."""
    from concurrent.futures import ThreadPoolExecutor

    from tools.checks.quality import quality_checks

    side = b.fork()
    try:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="chronoeval-checks") as pool:
            quality = pool.submit(quality_checks, side)
            patterns = pattern_checks(b)
            return quality.result() + patterns
    finally:
        side.close()


def run_checks(out_dir: str | Path, incidents: set[str] | None = None) -> list[Check]:
    """All data-quality and pattern checks of the bundle in ``out_dir`` (quality first). With
    ``incidents``, only the pattern checks of those incidents (e.g. after adding one)."""
    b = open_bundle(out_dir, rowids=True)
    try:
        if incidents is not None:
            return pattern_checks(b, set(incidents))
        return all_checks(b)
    finally:
        b.close()


def write_checks(out_dir: str | Path, checks: list[Check]) -> Path:
    """``OUT/checks.json``: a JSON list of the check records (written via a temp file + rename)."""
    path = Path(out_dir) / CHECKS
    atomic_write_text(path, json.dumps([c.model_dump() for c in checks], indent=2) + "\n")
    return path


def failed_patterns(checks: list[Check]) -> list[Check]:
    return [c for c in checks if c.kind == "pattern" and not c.passed]


def explain_failures(checks: list[Check], out: str | Path, incidents: list[dict] | None = None) -> str:
    """One paragraph naming every incident (and table) whose checks failed and what fell short."""
    by_id = {r["id"]: r for r in incidents or []}
    failed = [c for c in checks if not c.passed]
    parts = []
    for inc in dict.fromkeys(c.incident for c in failed if c.incident):
        rec = by_id.get(inc, {})
        where = f" ({rec['kind']} on {rec['table']}, {rec['start']} .. {rec['end']})" if rec else ""
        why = "; ".join(f"{c.name}: {c.detail}" for c in failed if c.incident == inc)
        parts.append(f"incident '{inc}'{where} failed {why}")
    parts += [f"quality check {c.name} on {c.table} failed: {c.detail}" for c in failed if not c.incident]
    return (" | ".join(parts) + f". The bundle is in {out} (checks.json and report.md give every check); make "
            "each effect larger than the detectability bound (6 baseline standard deviations of the key), "
            "widen its window or pick other entities, or pass --allow-failed-checks to keep it as it is.")
