"""report.md's data card (tables, rows, entities, time range, nulls per column, incidents with
their checks and figures), and finishing a bundle: checks.json + figures/ + report.md + manifest."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from tools.bundle.atomic import upsert_section
from tools.bundle.files import CHECKS, FIGURES_DIR, MANIFEST, REPORT
from tools.bundle.manifest import refresh_manifest
from tools.bundle.opened import Bundle, open_bundle
from tools.checks.model import Check, qi, us_to_iso
from tools.checks.tables import table_infos

BEGIN, END = "<!-- chronoeval:data-card:begin -->", "<!-- chronoeval:data-card:end -->"
FIGURES_OF_OTHERS = ("questions.png",)  # written by `chronoeval queries`


def _table_rows(b: Bundle) -> list[dict]:
    out = []
    for t in table_infos(b.spec, b.tables):
        cols = b.columns(t.name)
        ts = f", min(epoch_us({qi(t.ts_col)})), max(epoch_us({qi(t.ts_col)}))" if t.ts_col else ", NULL, NULL"
        counts = "".join(f", count({qi(c)})" for c in cols)
        n, ents, lo, hi, *nonnull = b.one(f"SELECT count(*), count(DISTINCT {t.key}){ts}{counts} "
                                          f"FROM {qi(t.name)}")
        out.append({"name": t.name, "kind": t.kind, "rows": n, "entities": ents, "lo": lo, "hi": hi,
                    "nulls": {c: n - k for c, k in zip(cols, nonnull, strict=True)}})
    return out


def _mark(c: Check) -> str:
    return "PASS" if c.passed else "**FAIL**"


def data_card(b: Bundle, checks: list[Check], figures: dict[str, str]) -> str:
    manifest = json.loads((b.out / MANIFEST).read_text()) if (b.out / MANIFEST).is_file() else {}
    lines = [BEGIN, "## Data card", "",
             f"Spec **{b.spec.name}**, seed {manifest.get('seed', b.spec.seed)}, scale {manifest.get('scale', 1)}, "
             f"start {b.spec.start}, horizon {b.spec.horizon}.", "",
             "| table | kind | rows | entities | time range (UTC) |", "|---|---|---:|---:|---|"]
    tables = _table_rows(b)
    for t in tables:
        span = f"{us_to_iso(t['lo'])} .. {us_to_iso(t['hi'])}" if t["lo"] is not None else "-"
        lines.append(f"| {t['name']} | {t['kind']} | {t['rows']:,} | {t['entities']:,} | {span} |")
    lines += ["", "### Nulls per column", ""]
    for t in tables:
        cells = ", ".join(f"{c} {n:,}" + (f" ({n / t['rows']:.1%})" if n and t["rows"] else "")
                          for c, n in t["nulls"].items())
        lines.append(f"- **{t['name']}**: {cells}")
    q = [c for c in checks if c.kind == "quality"]
    bad = [c for c in q if not c.passed]
    lines += ["", "### Data-quality checks", "",
              f"{len(q) - len(bad)}/{len(q)} passed (nulls, ranges, cadence, duplicate keys, monotonic timestamps, "
              "state transitions, terminal states, foreign keys; see checks.json for the SQL)."]
    lines += [f"- {_mark(c)} `{c.table}` {c.name}: {c.detail}" for c in bad]
    lines += ["", "### Incidents", ""]
    if not b.incidents:
        lines.append("No incidents in this spec.")
    for rec in b.incidents:
        ents = rec["entities"]
        shown = ", ".join(ents[:10]) + (f" and {len(ents) - 10} more" if len(ents) > 10 else "")
        lines += [f"#### {rec['id']} ({rec['kind']})", ""]
        if rec.get("description"):
            lines += [rec["description"].strip(), ""]
        lines.append(f"- table `{rec['table']}`, {len(ents)} {rec['entity_type']} entities: {shown}")
        lines.append(f"- window {rec['start']} .. {rec['end']} (end exclusive)")
        if rec["keys"]:
            mags = rec.get("magnitude") or {}
            lines.append("- keys: " + ", ".join(f"{k} ({(rec.get('signature') or {}).get(k, {}).get('direction', '?')}"
                                                + (f", {mags[k]}" if k in mags else "") + ")" for k in rec["keys"]))
        if rec.get("root"):
            lines.append(f"- cascade child of `{rec['root']}` (lag {rec.get('lag_seconds', 0):g}s)")
        if rec.get("children"):
            lines.append("- cascade children: " + ", ".join(f"`{c}`" for c in rec["children"]))
        lines += [f"- {_mark(c)} {c.name}: {c.detail}" for c in checks if c.incident == rec["id"]]
        if rec["id"] in figures:
            lines += ["", f"![{rec['id']}](figures/{figures[rec['id']]})"]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n" + END + "\n"


def write_report(out: Path, card: str, title: str = "") -> Path:
    """Insert (or replace) the data-card section of ``OUT/report.md``."""
    return upsert_section(out / REPORT, card, BEGIN, END, title)


def _swap_dir(tmp: Path, final: Path) -> None:
    old = None
    if final.exists():
        old = final.with_name(f".{final.name}.old-{os.getpid()}")
        os.replace(final, old)
    os.replace(tmp, final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def check_bundle(out: str | Path, figures: bool = True) -> list[Check]:
    """Run every check of the bundle at ``out`` and write checks.json, figures/, report.md (data card)
    and the new files' hashes in manifest.json. Returns the checks."""
    from tools.checks.figures import incident_figures
    from tools.checks.run import all_checks, write_checks

    out = Path(out)
    b = open_bundle(out, rowids=True)
    try:
        checks = all_checks(b)
        write_checks(out, checks)
        figs: dict[str, str] = {}
        if figures and b.incidents:
            tmp = Path(tempfile.mkdtemp(prefix=".figures.tmp-", dir=out))
            try:
                figs = incident_figures(b, tmp)
                os.chmod(tmp, 0o755)
                for name in FIGURES_OF_OTHERS:  # figures other stages wrote survive a re-check
                    if (out / FIGURES_DIR / name).is_file():
                        shutil.copy2(out / FIGURES_DIR / name, tmp / name)
                _swap_dir(tmp, out / FIGURES_DIR)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
        write_report(out, data_card(b, checks, figs), b.spec.name)
    finally:
        b.close()
    refresh_manifest(out, [CHECKS, REPORT, FIGURES_DIR])
    return checks
