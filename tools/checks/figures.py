"""One PNG per incident: the affected series of one affected entity (first key) with the window
shaded, plus one unaffected peer for contrast. Uses matplotlib's object API with the Agg canvas
(no pyplot, no global backend switch)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tools.bundle.opened import Bundle
from tools.checks.model import in_list, iso_to_us, key_sql, qi, rec_key
from tools.checks.patterns import make_ctx, peers
from tools.checks.series import fetch
from tools.common.durations import parse_duration
from tools.patterns.registry import get_kind
from tools.sqlsafe import quote_literal

HOUR = 3_600_000_000


def _dt(t_us: np.ndarray) -> np.ndarray:
    return np.asarray(t_us, dtype="datetime64[us]")


def figure_name(incident_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", incident_id) + ".png"


def _key_for(b: Bundle, rec: dict) -> str | None:
    present = set(b.columns(rec["table"]))
    if any(k in present for k in rec["keys"]):
        return next(k for k in rec["keys"] if k in present)
    e = b.spec.entity(rec["entity_type"])
    removes_rows = getattr(get_kind(rec["kind"]), "removes_rows", False)
    return next((m.name for m in e.measurements if not m.hidden), None) if removes_rows else None


def _series_panel(ax, b: Bundle, rec: dict, key: str, lo: int, hi: int) -> str:
    ctx = make_ctx(b, rec)
    ent = sorted(rec["entities"])[0]
    extra = f" AND epoch_us({qi(rec['timestamp_column'])}) BETWEEN {lo} AND {hi}"
    busy = {x for r in b.incidents if r.get("table") == rec["table"] and iso_to_us(r["start"]) < hi
            and lo < iso_to_us(r["end"]) for x in r["entities"]}
    calm = [p for p in peers(ctx) if p not in busy] or peers(ctx)
    start, end = iso_to_us(rec["start"]), iso_to_us(rec["end"])
    calm = _steady(b, rec, calm, lo, hi) or _steady(b, rec, calm, start, end) or calm
    peer = _closest_peer(b, rec, key, ent, calm, extra)
    em = b.spec.entity(rec["entity_type"]).emission
    step = parse_duration(em.cadence) * 1e6 if em is not None and em.kind == "periodic" else None
    series, _ = fetch(b, rec["table"], rec_key(rec), rec["timestamp_column"], [ent] + ([peer] if peer else []),
                      [key], extra)
    for name, style, width in ((ent, "-", 1.6), (peer, "-", 1.0)):
        s = series.get(name) if name else None
        if s is None:
            continue
        what = "affected" if name == ent else "unaffected peer"
        t, x = s.t, s.x[key]
        if step and t.size > 1:  # break the line where rows are missing (outages)
            cut = np.flatnonzero(np.diff(t) > 1.5 * step) + 1
            t = np.insert(t.astype(float), cut, (t[cut - 1] + t[cut]) / 2).astype(np.int64)
            x = np.insert(x, cut, np.nan)
        ax.plot(_dt(t), x, style, lw=width, marker="." if s.t.size < 200 else None,
                color="#c0392b" if name == ent else "#7f8c8d", label=f"{name} ({what})")
    if _whole(b, rec, key):
        from matplotlib.ticker import MaxNLocator

        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return key


def _whole(b: Bundle, rec: dict, key: str) -> bool:
    """The key holds whole numbers (counts): its axis gets integer ticks."""
    m = next((m for m in b.spec.entity(rec["entity_type"]).measurements if m.name == key), None)
    return m is not None and (m.integer or m.noise.kind == "poisson" or m.decimals == 0)


def _steady(b: Bundle, rec: dict, candidates: list[str], lo: int, hi: int) -> list[str]:
    """The candidates that stay in the table's usual state (its most common value of the visible state
    column) over the whole plotted range, so the 'unaffected peer' does not look affected by an
    episode of its own (an outage state of the simulation). Empty when there is no state column."""
    machine = b.spec.entity(rec["entity_type"]).states
    col = getattr(machine, "column", None)
    if not col or col not in set(b.columns(rec["table"])) or not candidates:
        return []
    idc, ts, sc, tab = key_sql(rec_key(rec)), qi(rec["timestamp_column"]), qi(col), qi(rec["table"])
    usual = b.one(f"SELECT {sc} FROM {tab} GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1")[0]
    if usual is None:
        return []
    moved = {str(r[0]) for r in b.sql(
        f"SELECT DISTINCT {idc} FROM {tab} WHERE {idc} IN {in_list(candidates)} AND epoch_us({ts}) BETWEEN {lo} "
        f"AND {hi} AND {sc} IS DISTINCT FROM {quote_literal(str(usual))}")}
    return [c for c in candidates if c not in moved]


def _closest_peer(b: Bundle, rec: dict, key: str, ent: str, candidates: list[str], extra: str) -> str | None:
    """The unaffected entity whose median level of ``key`` (outside the window) is closest to the
    affected entity's, so both series share the plot's scale."""
    if not candidates:
        return None
    idc = key_sql(rec_key(rec))
    rows = b.sql(f"SELECT {idc}, median({qi(key)}) FROM {qi(rec['table'])} WHERE {idc} IN "
                 f"{in_list([ent, *candidates])}{extra} GROUP BY 1")
    level = {str(i): v for i, v in rows}
    if level.get(ent) is None:
        return candidates[0]
    scored = [(abs(level[c] - level[ent]), c) for c in candidates if level.get(c) is not None]
    return min(scored)[1] if scored else candidates[0]


def _count_panel(ax, b: Bundle, rec: dict, lo: int, hi: int) -> str:
    idc, ts = key_sql(rec_key(rec)), qi(rec["timestamp_column"])
    if getattr(get_kind(rec["kind"]), "adds_arrivals", False):
        sql = (f"SELECT (first_us // {HOUR}) * {HOUR} AS h, count(*), count(*) FILTER (WHERE NOT surge) FROM "
               f"(SELECT min(epoch_us({ts})) AS first_us, {idc} IN {in_list(rec['entities'])} AS surge FROM "
               f"{qi(rec['table'])} GROUP BY {idc}) WHERE first_us BETWEEN {lo} AND {hi} GROUP BY 1 ORDER BY 1")
        rows = b.sql(sql)
        if rows:
            from matplotlib.ticker import MaxNLocator

            h, n, rest = zip(*rows, strict=True)
            ax.plot(_dt(np.array(h)), n, "-", color="#c0392b", lw=1.6, label="all entities")
            ax.plot(_dt(np.array(h)), rest, "-", color="#7f8c8d", lw=1.0, label="without the surge entities")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        return "entities starting per hour"
    if getattr(get_kind(rec["kind"]), "shifts_behaviour", False) and (panel := _behavior_panel(ax, b, rec, lo, hi)):
        return panel
    aff = in_list(rec["entities"])
    sql = (f"SELECT {idc} IN {aff} AS a, (epoch_us({ts}) // {HOUR}) * {HOUR} AS h, count(*) FROM {qi(rec['table'])} "
           f"WHERE epoch_us({ts}) BETWEEN {lo} AND {hi} GROUP BY ALL ORDER BY 2")
    rows = b.sql(sql)
    n_aff = max(len(rec["entities"]), 1)
    n_all = b.one(f"SELECT count(DISTINCT {idc}) FROM {qi(rec['table'])}")[0]
    for flag, color, label in ((True, "#c0392b", "affected"), (False, "#7f8c8d", "unaffected")):
        pts = [(h, n) for a, h, n in rows if bool(a) == flag]
        if pts:
            h, n = zip(*pts, strict=True)
            per = n_aff if flag else max(n_all - n_aff, 1)
            ax.plot(_dt(np.array(h)), np.array(n) / per, "-", color=color, lw=1.4 if flag else 1.0,
                    label=f"{label} entities")
    return "rows per entity per hour"


def _behavior_panel(ax, b: Bundle, rec: dict, lo: int, hi: int) -> str | None:
    """Share of the rows leaving a shifted state that go to the next state whose share changed most."""
    from tools.checks.tables import NULL_LABEL, label, label_maps

    e = b.spec.entity(rec["entity_type"])
    cols = set(b.columns(rec["table"]))
    maps = {c: m for c, m in label_maps(e).items() if c in cols}
    if not maps:
        return None
    col, mapping = next(iter(maps.items()))
    params = rec.get("params") or {}
    src = sorted({label(mapping, st) for st in set(params.get("transitions") or {}) | set(params.get("dwell") or {})})
    src = src or sorted({label(mapping, st) for st in mapping})
    idc, ts = key_sql(rec_key(rec)), qi(rec["timestamp_column"])
    start, end = iso_to_us(rec["start"]), iso_to_us(rec["end"])
    step = max(HOUR, (end - start) // 8)
    lab = f"coalesce({qi(col)}, '{NULL_LABEL}')"
    aff = in_list(sorted(rec.get("targets") or rec["entities"]))
    rows = b.sql(f"SELECT a, (t - {start}) // {step} AS k, cur, count(*) FROM "
                 f"(SELECT {idc} IN {aff} AS a, epoch_us({ts}) AS t, {lab} AS cur, lag({lab}) OVER w AS prev FROM {qi(rec['table'])} "
                 f"WINDOW w AS (PARTITION BY {idc} ORDER BY {ts}, rowid)) WHERE prev IN {in_list(src)} "
                 f"AND t BETWEEN {lo} AND {hi} GROUP BY ALL")
    if not rows:
        return None
    inside: dict[str, int] = {}
    outside: dict[str, int] = {}
    for a, k, c, n in sorted(rows):  # GROUP BY returns its rows in thread order
        if a:
            side = inside if start <= start + k * step < end else outside
            side[c] = side.get(c, 0) + n
    tot_in, tot_out = max(sum(inside.values()), 1), max(sum(outside.values()), 1)
    target = max(sorted({*inside, *outside}), key=lambda c: abs(inside.get(c, 0) / tot_in - outside.get(c, 0) / tot_out))
    for flag, color, name in ((True, "#c0392b", "affected"), (False, "#7f8c8d", "unaffected")):
        per: dict[int, list[int]] = {}
        for a, k, c, n in rows:
            if bool(a) == flag:
                per.setdefault(int(k), [0, 0])
                per[int(k)][0] += n * (c == target)
                per[int(k)][1] += n
        ks = sorted(per)
        if ks:
            ax.plot(_dt(np.array([start + k * step for k in ks])), [per[k][0] / per[k][1] for k in ks], "-o",
                    ms=3, color=color, lw=1.4 if flag else 1.0, label=f"{name} entities")
    return f"share of {col}={target} after {', '.join(src)}"


def incident_figure(b: Bundle, rec: dict, path: Path) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    start, end = iso_to_us(rec["start"]), iso_to_us(rec["end"])
    pad = max(end - start, 12 * HOUR)
    lo, hi = start - pad, end + pad
    fig = Figure(figsize=(9, 3.4), dpi=80)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    key = _key_for(b, rec)
    ylabel = _series_panel(ax, b, rec, key, lo, hi) if key else _count_panel(ax, b, rec, lo, hi)
    ax.axvspan(_dt(np.array([start]))[0], _dt(np.array([end]))[0], color="#f5b041", alpha=0.3, label="incident window")
    ax.set_xlim(_dt(np.array([lo]))[0], _dt(np.array([hi]))[0])
    ax.set_title(f"{rec['id']}: {rec['kind']} on {rec['entity_type']} ({rec['table']})", fontsize=10)
    ax.set_ylabel(ylabel, fontsize=9)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    fig.autofmt_xdate()
    fig.subplots_adjust(left=0.08, right=0.98, top=0.9, bottom=0.22)
    fig.savefig(path, format="png")
    return path


def incident_figures(b: Bundle, directory: Path) -> dict[str, str]:
    """Write every incident's PNG into ``directory``; returns incident id -> file name."""
    directory.mkdir(parents=True, exist_ok=True)
    out = {}
    for rec in b.incidents:
        if not b.has(rec["table"]):
            continue
        name = figure_name(rec["id"])
        incident_figure(b, rec, directory / name)
        out[rec["id"]] = name
    return out
