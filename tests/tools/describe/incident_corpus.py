"""Score the offline reading of described incidents against ``tests/data/incident_sentences/sentences.yaml``.

    .venv/bin/python -m tests.tools.describe.incident_corpus [--file YAML] [--only ID] [-v]

Each case is a short description (``context``) and an incident sentence; the description plus the sentence
is read offline (``understand`` then ``compose_world``, no data generated) and the spec's incidents are
compared field by field with what a domain expert read in the sentence: what happens (the pattern kind), to
which measurement and entity type, on how many entities or through which parent, the day, the clock time,
the duration, the size and the direction. A case marked ``understood: false`` (too vague to model) is met
when the reading lists the sentence as not understood. Every case also checks that no entity type is made
of a word only the incident sentence says (a verb or a preposition read as a thing).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parents[2] / "data" / "incident_sentences" / "sentences.yaml"
KINDS = {  # what a user says happens -> the pattern kinds that reproduce it
    "outage": {"data_outage"}, "degradation": {"kpi_degradation", "level_shift", "slow_drift"},
    "spike": {"spike", "flash_crowd"}, "dip": {"dip", "level_shift", "kpi_degradation"},
    "surge": {"flash_crowd", "spike", "level_shift", "kpi_degradation"}, "drift": {"slow_drift"},
    "stuck": {"flatline"}, "noise": {"variance_burst"}, "gaps": {"null_burst", "data_outage"},
    "shift": {"level_shift", "kpi_degradation"}, "behaviour": {"behavior_shift"},
}
FIELDS = ("what", "measurement", "entity", "ids", "count", "all", "parent", "day", "start", "duration", "magnitude",
          "direction")


@dataclass(frozen=True)
class FieldOutcome:
    """One field of one case: met or not, and what the reading gave."""

    case: str
    field: str
    met: bool
    detail: str = ""


def load_cases(path: Path = CORPUS) -> list[dict]:
    """The corpus cases (a YAML list)."""
    return yaml.safe_load(path.read_text())


def read_case(case: dict):
    """(draft, spec) of the case's context plus its sentence, read offline."""
    from knowledge.catalog import load_catalog
    from tools.describe.compose_world import compose_world
    from tools.describe.understand import understand

    catalog = load_catalog()
    draft = understand(f"{case['context'].strip()} {case['sentence'].strip()}", catalog)
    spec, _decisions, _notes = compose_world(draft, catalog)
    return draft, spec


def _window(inc) -> tuple[int | None, str | None, float | None]:
    from tools.spec import parse_duration

    m = re.match(r"day\s+(\d+)(?:\s+(\d{1,2}:\d{2}))?", inc.window.start)
    day, start = (int(m.group(1)), m.group(2)) if m else (None, None)
    if start is not None and len(start) == 4:
        start = "0" + start
    dur = parse_duration(inc.window.duration) if inc.window.duration else None
    return day, start, dur


def _effects(inc) -> dict:
    effects = dict(getattr(inc, "effects", None) or {})
    root = getattr(inc, "root", None)
    return effects or dict(getattr(root, "effects", None) or {})


def _keys(inc) -> list[str]:
    return list(_effects(inc)) or list(getattr(inc, "keys", None) or [])


def _magnitude_ok(want: dict, effects: dict) -> tuple[bool, str]:
    from tools.patterns.magnitude import parse_magnitude

    if not effects:
        return False, "no effect size"
    mags = [parse_magnitude(v) for v in effects.values()]
    if "to" in want:  # "falls to zero": a relative change of -100%
        ok = any(m.unit == "relative" and abs(m.value + 1) < 1e-6 for m in mags) if want["to"] == 0 else False
        return ok, ", ".join(map(str, effects.values()))
    value, unit = float(want["value"]), str(want.get("unit", ""))
    if unit == "%":
        ok = any(m.unit == "relative" and abs(abs(m.value) - value / 100) < 1e-6 for m in mags)
    elif unit == "x":
        ok = any(m.unit == "relative" and abs(abs(m.value) - abs(value - 1)) < 1e-6 for m in mags)
    else:
        ok = any(m.unit == "units" and abs(abs(m.value) - value) < 1e-6 for m in mags)
    return ok, ", ".join(map(str, effects.values()))


def _direction(inc) -> str | None:
    from tools.patterns.magnitude import parse_magnitude

    signs = {parse_magnitude(v).value > 0 for v in _effects(inc).values()}
    if getattr(inc, "surge", None) or inc.kind == "flash_crowd":
        return "up"
    return None if len(signs) != 1 else ("up" if signs.pop() else "down")


def field_outcomes(case: dict, draft, spec) -> list[FieldOutcome]:
    """Every expected field of one case with its outcome in the reading."""
    cid, want = case["id"], case["expect"]
    out = [_no_verb_entities(case, spec)]
    if want.get("understood") is False:
        said = case["sentence"].strip().rstrip(".").lower()
        listed = any(said[:30] in x.lower() for x in draft.not_understood)
        return out + [FieldOutcome(cid, "not understood", listed, "" if listed else "not listed as not understood")]
    kinds = KINDS.get(want["what"], set())
    incidents = list(spec.incidents)
    scored = sorted(incidents, key=lambda inc: -sum(o.met for o in _compare(cid, want, inc, kinds)))
    right_kind = [inc for inc in scored if inc.kind in kinds]
    best = (right_kind or scored or [None])[0]
    if best is None:
        return out + [FieldOutcome(cid, f, False, "no incident in the spec") for f in FIELDS if f in want
                      and (f != "measurement" or want[f] is not None) and want[f] is not None]
    return out + _compare(cid, want, best, kinds)


def _compare(cid: str, want: dict, inc, kinds: set[str]) -> list[FieldOutcome]:
    from tools.spec import parse_duration

    t, (day, start, dur) = inc.target, _window(inc)
    out = []

    def add(name: str, ok: bool, got) -> None:
        out.append(FieldOutcome(cid, name, ok, "" if ok else f"{name}: read {got!r}"))

    add("what", inc.kind in kinds, inc.kind)
    if want.get("measurement"):
        keys = _keys(inc)
        # a key is the user's words in snake_case: "approval rate" is the key approval_rate
        add("measurement", any(re.search(want["measurement"], k, re.I) or re.search(want["measurement"], k.replace("_", " "),
                                                                                     re.I) for k in keys), keys)
    if want.get("entity"):
        add("entity", re.search(want["entity"], t.entity, re.I) is not None, t.entity)
    if want.get("ids"):
        got = sorted(str(x).lower() for x in t.ids or [])
        add("ids", got == sorted(str(x).lower() for x in want["ids"]), t.ids)
    if want.get("count") is not None:
        n = t.random if t.random is not None else (len(t.ids) if t.ids is not None else None)
        add("count", n == want["count"], n)
    if want.get("all"):
        add("all", t.random is None and t.ids is None, t.model_dump(exclude_none=True))
    if want.get("parent"):
        p = want["parent"]
        conds = [c for c in (t.where or []) if re.search(p["match"], c.attribute, re.I)]
        ok = bool(conds) and (p.get("count") is None or any(len(c.in_ or []) == p["count"] for c in conds))
        if p.get("ids"):
            wanted = {str(x).lower() for x in p["ids"]}
            ok = ok and any({str(v).lower() for v in c.in_ or [c.equals]} == wanted for c in conds)
        add("parent", ok, t.model_dump(exclude_none=True))
    if want.get("day") is not None:
        add("day", day == want["day"], inc.window.start)
    if want.get("start") is not None:
        add("start", start == want["start"], inc.window.start)
    if want.get("duration") is not None:
        add("duration", dur is not None and abs(dur - parse_duration(want["duration"])) < 1e-6, inc.window.duration)
    if want.get("magnitude") is not None:
        ok, got = _magnitude_ok(want["magnitude"], _effects(inc))
        add("magnitude", ok, got)
    if want.get("direction") is not None:
        got = _direction(inc)
        add("direction", got == want["direction"], got)
    return out


def _no_verb_entities(case: dict, spec) -> FieldOutcome:
    """No entity type is named by a word the incident sentence says and the description does not."""
    context = {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z]+", case["context"])}
    own = {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z]+", case["sentence"])} - context
    made = [e.name for e in spec.entities if set(e.name.split("_")) & own
            and not set(e.name.split("_")) & context]
    return FieldOutcome(case["id"], "no entity from the sentence's words", not made,
                        f"entity types made of the sentence's words: {made}" if made else "")


def score(cases: list[dict]) -> tuple[list[FieldOutcome], list[str]]:
    """(every field outcome, the ids of cases whose reading failed outright)."""
    outcomes, crashed = [], []
    for case in cases:
        try:
            draft, spec = read_case(case)
        except Exception as exc:  # noqa: BLE001 - a reading that fails meets none of the case's fields
            crashed.append(f"{case['id']}: {type(exc).__name__}: {exc}")
            want = case["expect"]
            n = 1 if want.get("understood") is False else sum(1 for f in FIELDS if want.get(f) is not None)
            outcomes += [FieldOutcome(case["id"], "reading", False, str(exc))] * (n + 1)
            continue
        outcomes += field_outcomes(case, draft, spec)
    return outcomes, crashed


def main(argv: list[str] | None = None) -> int:
    """Print the share of fields reproduced as stated, per field and overall."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=CORPUS, help="a corpus file of the same format (default: "
                        "sentences.yaml; the held-out set is heldout.yaml beside it)")
    parser.add_argument("--only", help="one case id")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every unmet field")
    args = parser.parse_args(argv)
    cases = [c for c in load_cases(args.file) if args.only in (None, c["id"])]
    outcomes, crashed = score(cases)
    for line in crashed:
        print(f"crashed: {line}")
    if args.verbose:
        for o in outcomes:
            if not o.met:
                print(f"{o.case}: {o.field}: {o.detail}")
    by_field: dict[str, list[int]] = {}
    for o in outcomes:
        tally = by_field.setdefault(o.field, [0, 0])
        tally[0] += o.met
        tally[1] += 1
    for name, (met, total) in sorted(by_field.items()):
        print(f"{name}: {met}/{total}")
    met = sum(o.met for o in outcomes)
    print(f"overall: {met}/{len(outcomes)} fields reproduced as stated ({100 * met / max(1, len(outcomes)):.1f}%), "
          f"{len(cases)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
