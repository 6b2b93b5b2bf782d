"""English pieces of the incident questions: measures, populations, windows, thresholds."""

from __future__ import annotations

from tools.queries.render import entity_filter_words, fmt_num, plural, pred_words, unit_words, window_words
from tools.queries.spec import EntityFilter, Predicate, Window
from tools.queries.templates.incident_model import Inc, Measure, key_name

COUNTS = ("rows", "nulls", "entities")


def key_words(inc: Inc, key: str) -> str:
    """'packet loss (percent)', 'RRC_ConnEstabFail (connections)'."""
    k = inc.t.key(key)
    u = unit_words(k.unit)
    return f"{key_name(key)} ({u})" if u else key_name(key)


def rows_noun(inc: Inc) -> str:
    return "readings" if inc.t.periodic else "events"


def measure_words(inc: Inc, m: Measure | dict, event_filter: list[Predicate] | tuple = ()) -> str:
    """'mean packet loss (percent)', 'number of events where page is 'purchase''."""
    key, agg = (m.key, m.agg) if isinstance(m, Measure) else (m.get("key"), m.get("agg"))
    ef = list(event_filter or (m.event_filter if isinstance(m, Measure) else ()))
    if agg == "rows":
        cond = " and ".join(pred_words(p, inc.t) for p in ef)
        return f"number of {rows_noun(inc)}" + (f" where {cond}" if cond else "")
    if agg == "entities":
        return f"number of distinct {plural(inc.t.noun)} with at least one {rows_noun(inc)[:-1]}"
    kw = key_words(inc, key)
    if agg == "nulls":
        return f"number of {rows_noun(inc)} with no {key_name(key)} value"
    return {"mean": f"mean {kw}", "sum": f"total {kw}", "max": f"maximum {kw}", "min": f"minimum {kw}",
            "std": f"sample standard deviation of {kw}",
            "range": f"range of {kw} (highest minus lowest reading)"}[agg]


def decimals_for(inc: Inc, m: Measure | dict) -> int:
    """Whole numbers for counts and sums of counts; 3 decimals for finely recorded keys; else 2."""
    key, agg = (m.key, m.agg) if isinstance(m, Measure) else (m.get("key"), m.get("agg"))
    if agg in COUNTS:
        return 0
    k = inc.t.key(key)
    if k.integer and agg in ("sum", "max", "min", "range"):
        return 0
    return 3 if (k.decimals or 0) >= 3 else 2


def unit_of(inc: Inc, m: Measure | dict) -> str | None:
    key, agg = (m.key, m.agg) if isinstance(m, Measure) else (m.get("key"), m.get("agg"))
    return None if agg in COUNTS or key is None else inc.t.key(key).unit


def _n(inc: Inc) -> tuple[str, str]:
    one = len(inc.ids) == 1 and inc.per_entity
    return (inc.t.noun, "was") if one else (plural(inc.t.noun), "were")


def _efw(inc: Inc, f: EntityFilter | None) -> str:
    w = entity_filter_words(f, inc.t) if f is not None else ""
    return " " + w if w else ""


def strip_ids(f: EntityFilter | None, inc: Inc) -> EntityFilter | None:
    """The filter without its entity-id predicates (what can be said of it in words)."""
    if f is None:
        return None
    ids = {inc.t.entity, f.ref if f.table is not None and f.key == inc.t.entity else inc.t.entity}
    preds = [p for p in f.predicates if p.column not in ids]
    return f.model_copy(update={"predicates": preds}) if preds else None


def who(inc: Inc, mode: str, f: EntityFilter | None = None) -> str:
    """Population words. ``affected``: the hidden affected entities (the window is named as the
    incident); ``affected_ref``: the same, naming the incident (explicit windows); ``others``: the
    unaffected ones ("not affected by it"); ``all``: every entity of filter ``f``."""
    noun, verb = _n(inc)
    if not inc.per_entity and mode in ("affected", "affected_ref"):
        mode, f = "all", inc.subpop
    sp = _efw(inc, inc.subpop)
    if mode == "affected":
        return f"the affected {noun}{sp}"
    if mode == "affected_ref":
        return f"the {noun}{sp} that {verb} affected by {inc.phrase}"
    if mode == "others":
        if inc.per_entity:
            return f"the {plural(inc.t.noun)}{_efw(inc, strip_ids(f, inc))} that were not affected by it"
        return f"{plural(inc.t.noun)}{_efw(inc, f)}"
    return f"all {plural(inc.t.noun)}{_efw(inc, f)}" if f is not None else f"all {plural(inc.t.noun)}"


def during(inc: Inc) -> str:
    return f"during {inc.phrase}"


def explicit(w: Window, inc: Inc | None = None, note: str = "") -> str:
    """An explicit window, optionally with what it is relative to the incident."""
    return window_words(w) + (f", {note}" if note else "")


def op_words(op: str) -> str:
    return {">": "above", ">=": "at or above", "<": "below", "<=": "at or below"}[op]


def threshold_words(inc: Inc, m: dict, value) -> str:
    u = unit_of(inc, m)
    s = fmt_num(value, 6)
    return f"{s} {unit_words(u)}".strip()


def pop_noun(inc: Inc, f: EntityFilter | None) -> str:
    """A plural noun phrase for a population: 'sensors whose zone is 'cold_storage''."""
    if f is None:
        return plural(inc.t.noun)
    if inc.relation is not None and f == inc.relation:
        return inc.relation_words.removeprefix("the ")
    if inc.relation_not is not None and f == inc.relation_not[0]:
        return inc.relation_not[1].removeprefix("the ")
    if any(p.op == "not_in" for p in f.predicates):
        return f"{plural(inc.t.noun)}{_efw(inc, strip_ids(f, inc))} that were not affected by it"
    return f"{plural(inc.t.noun)}{_efw(inc, f)}"
