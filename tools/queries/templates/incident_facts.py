"""What the incident templates know about each incident of incidents.json: read from the manifest and
checked against the data (see ``incident_scope``), with its English names.

Questions where finding the incident is the task name it only by ``Inc.phrase`` ("the packet loss,
latency and jitter degradation on 2 January"); the ground truth uses the manifest window and ids.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from tools.patterns.registry import Words, get_kind
from tools.queries.composite import keyed_table
from tools.queries.context import SynthContext, iso
from tools.queries.render import plural
from tools.queries.spec import Window
from tools.queries.sql.common import ident
from tools.queries.templates.incident_model import DAY, MOVED, Inc, Measure, join_words, key_name
from tools.queries.templates.incident_scope import event_measures, others, relation, subpop


def incidents(ctx: SynthContext) -> list[Inc]:
    """Every usable incident of the bundle, root levels before their cascade children (memoized)."""
    if "incident_facts" not in ctx.memo:
        done: dict[str, Inc] = {}
        for rec in ctx.incidents:
            inc = _resolve(ctx, rec, done)
            if inc is not None:
                done[rec["id"]] = inc
        ctx.memo["incident_facts"] = list(done.values())
    return ctx.memo["incident_facts"]


def _resolve(ctx: SynthContext, rec: dict, done: dict[str, Inc]) -> Inc | None:
    t = ctx.catalog.tables.get(rec.get("table"))
    if t is None or not rec.get("entities"):
        return None
    w = Window(start=iso(datetime.fromisoformat(rec["start"])), end=iso(datetime.fromisoformat(rec["end"])))
    real = t if t.entity_parts else None  # a composite key: synthesis reads the keyed view
    inc = Inc(rec, keyed_table(t) if real else t, [str(x) for x in rec["entities"]], w, t.periodic, real=real)
    inc.subpop, inc.subpop_n = subpop(ctx, inc)
    root = done.get(rec.get("root") or "")
    inc.what = ("knock-on " if root else "") + _what(inc)
    inc.when = f"that followed {root.phrase}" if root else _when(w, t)
    inc.baseline, inc.baseline_rel = _baseline(ctx, inc)
    inc.others = others(ctx, inc)
    prev = next((i for i in done.values() if root and i.rec.get("cascade") == rec.get("cascade")
                 and i.rec.get("level") == rec.get("level", 0) - 1), None)
    if prev is not None:
        inc.relation, inc.relation_words, inc.relation_not = relation(ctx, inc, prev)
    if inc.per_entity:
        inc.measures = _key_measures(inc)
        inc.calm = _calm_keys(ctx, inc)
    elif inc.baseline is not None:
        inc.measures, inc.calm = event_measures(ctx, inc)
    return inc


def _when(w: Window, t) -> str:
    s, last = w.start_dt, w.end_dt - timedelta(microseconds=1)
    d0 = f"{s.day} {s:%B}"
    if s.date() == last.date():
        return f"on {d0}"
    if w.end_dt >= t.end:
        return f"that began on {d0}"
    return f"from {d0} to {last.day} {last:%B}"


def _what(inc: Inc) -> str:
    """How a question names the incident (the kind's ``phrase``: "spike in latency")."""
    rec, t = inc.rec, inc.t
    kind = get_kind(rec["kind"])
    if kind is None:
        return "incident"
    ks = join_words([key_name(k) for k in rec.get("keys", [])]) if rec.get("keys") else ""
    states = list((rec.get("params") or {}).get("transitions", {}))
    return kind.phrase(Words(ks, t.noun, plural(t.noun), join_words(states) if states else ""))


def overlaps(ctx: SynthContext, inc: Inc, w: Window) -> bool:
    """Whether ``w`` overlaps an incident on the same table that touches the same entities (any, for logs)."""
    for r in ctx.incidents:
        if r.get("table") != inc.table:
            continue
        if inc.per_entity and not set(map(str, r.get("entities", []))) & set(inc.ids):
            continue
        s, e = datetime.fromisoformat(r["start"]), datetime.fromisoformat(r["end"])
        if s < w.end_dt and w.start_dt < e:
            return True
    return False


def _baseline(ctx: SynthContext, inc: Inc) -> tuple[Window | None, str]:
    """The same hours one day earlier (or later); for long incidents of metric series, all data before."""
    s, e, t = inc.window.start_dt, inc.window.end_dt, inc.t
    tries = []
    if e - s <= DAY:
        tries = [(s - DAY, e - DAY, "one day earlier"), (s + DAY, e + DAY, "one day later")]
    elif s - t.start >= DAY and inc.per_entity:  # counts need equally long windows
        tries = [(t.start, s, None)]
    for bs, be, rel in tries:
        if bs < t.start or be > t.end:
            continue
        w = Window(start=iso(bs), end=iso(be))
        if overlaps(ctx, inc, w):
            continue
        words = f"the same hours on {bs.day} {bs:%B} ({rel})" if rel else "all of the data before it began"
        return w, words
    return None, ""


def _key_measures(inc: Inc) -> list[Measure]:
    out = []
    keys = {k.name: k for k in inc.t.keys}
    sig = inc.rec.get("signature", {})
    for k in inc.rec.get("keys", []):
        d = sig.get(k, {}).get("direction")
        if k not in keys or d not in MOVED:
            continue
        if d in ("up", "down"):
            out.append(Measure(k, "mean", d))
            if getattr(get_kind(inc.rec["kind"]), "extremes", False):
                out.append(Measure(k, "max" if d == "up" else "min", d))
            if keys[k].integer:
                out.append(Measure(k, "sum", d))
        elif d == "flat":
            out.append(Measure(k, "range", "down"))
        elif d == "variance":
            out.append(Measure(k, "std", "up"))
        elif d == "null":
            out.append(Measure(k, "nulls", "up"))
        elif d == "missing":
            out.append(Measure(None, "rows", "down"))
            break
    return out


def _calm_keys(ctx: SynthContext, inc: Inc) -> list[Measure]:
    """Keys no incident touching these entities moved during this window."""
    moved: set[str] = set()
    for r in ctx.incidents:
        if r.get("table") == inc.table and set(map(str, r.get("entities", []))) & set(inc.ids) and \
                datetime.fromisoformat(r["start"]) < inc.window.end_dt and \
                inc.window.start_dt < datetime.fromisoformat(r["end"]):
            moved |= set(r.get("keys", [])) | set(r.get("injected_keys", [])) | set(r.get("derived_keys", []))
    return [Measure(k.name, "mean", "up") for k in inc.t.keys if k.name not in moved]


def nonnegative(ctx: SynthContext, inc: Inc, key: str | None) -> bool:
    """Whether a key never goes below zero in the table (ratios of its aggregates make sense)."""
    if key is None:
        return True
    memo = ("inc_min", inc.t.name)
    if memo not in ctx.memo:
        cols = ", ".join(f"min({ident(k.name)})" for k in inc.t.keys)
        row = ctx.con.execute(f"SELECT {cols} FROM {ident(inc.t.name)}").fetchone()
        ctx.memo[memo] = {k.name: v for k, v in zip(inc.t.keys, row, strict=True)}
    lo = ctx.memo[memo].get(key)
    return lo is not None and lo >= 0
