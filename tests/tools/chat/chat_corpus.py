"""Score a chat reader on the request corpus (tests/data/chat_requests/): each request, read against the
corpus's bundle state, must give exactly the expected operations, an ask-back, or a session control.

    python -m tests.tools.chat.chat_corpus [--file half_a.yaml] [--reader legacy|current] [-v]

Counts: exact; **applied to the wrong target** (operations applied that are not the expected ones: the
worst outcome); refused (an ask where operations were expected). ``legacy`` is the grammar chat had
before issue 30 (``tools.describe.refine``), read into typed operations as chat would have applied it.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from tools.chat.ops import Ask, Reading, parse_operations

DIR = Path(__file__).resolve().parents[2] / "data" / "chat_requests"


def load_state() -> dict:
    return yaml.safe_load((DIR / "towers_spec.yaml").read_text())


def legacy_reading(text: str, spec: dict) -> Reading:
    """What the pre-issue-30 grammar would have done, as typed operations."""
    from tools.describe.apply import _attribute_with_value, entity_for_id, entity_for_word
    from tools.describe.refine import find_incident, parse_request
    from tools.spec.io import parse_spec_text

    s = parse_spec_text(yaml.safe_dump(spec), "spec.yaml")
    r = parse_request(text, s.start_dt, max(1, int(s.horizon_seconds // 86400)))
    if r.op in ("help", "quit"):
        return Reading(control=r.op)
    if r.op in ("unknown", "cascade"):
        return Reading(ask=Ask(question=f"I did not understand '{text}'"))
    if r.op in ("show_incidents", "show_questions"):
        return Reading(ops=parse_operations([{"op": "show", "what": r.op.split("_")[1]}]))
    if r.op == "add_persona":
        return Reading(ops=parse_operations([{"op": "add_persona", "description": r.topic or ""}]))
    if r.op == "drop_questions":
        from tools.describe.refine import FAMILY_WORDS

        key = "family" if r.topic in FAMILY_WORDS.values() else "topic"
        return Reading(ops=parse_operations([{"op": "drop_questions", key: r.topic}]))
    if r.op == "more_questions":
        return Reading(ops=parse_operations([{"op": "add_questions", "family": r.kind, "topic": r.topic}]))
    if r.op == "remove_incident":
        inc = find_incident(spec, r.topic, r.kind)
        return Reading(ops=parse_operations([{"op": "remove_incident", "incident": inc["id"]}])) if inc else \
            Reading(ask=Ask(question="which incident?"))
    if r.op == "add_incident":
        ent = entity_for_word(spec, r.entity_word) or (entity_for_id(spec, r.target_ids[0]) if r.target_ids else None)
        found = _attribute_with_value(spec, r.topic) if r.topic else None
        op = {"op": "add_incident", "kind": r.kind, "entity": ent["name"] if ent else None,
              "ids": r.target_ids or None, "count": r.count, "start": r.when, "duration": r.duration,
              "where": {found[1]: found[2]} if found else None}
        return Reading(ops=parse_operations([op]))
    ops = []
    if r.count:
        ent = entity_for_word(spec, r.entity_word)
        ops.append({"op": "scale_entities", "entity": ent["name"] if ent else r.entity_word, "count": r.count})
    if r.kind:
        ops.append({"op": "set_cadence", "cadence": r.kind})
    if r.duration:
        ops.append({"op": "set_horizon", "horizon": r.duration})
    return Reading(ops=parse_operations(ops))


def current_reading(text: str, spec: dict, last: dict | None = None) -> Reading:
    """The offline chat reader (tools.chat.reader) on the corpus's bundle state."""
    from tools.chat.reader import read_request

    return read_request(text, _parsed(yaml.safe_dump(spec)), last)


_SPECS: dict = {}


def _parsed(text: str):
    from tools.spec.io import parse_spec_text

    if text not in _SPECS:
        _SPECS[text] = parse_spec_text(text, "spec.yaml")
    return _SPECS[text]


READERS = {"legacy": legacy_reading, "current": current_reading}


@dataclass
class Outcome:
    id: str
    verdict: str  # exact | wrong_target | refused | wrong_control | applied_not_asked
    got: str
    want: str


def _op_matches(got: dict, want: dict) -> bool:
    want = dict(want)
    day = want.pop("day", None)
    if day is not None and not str(got.get("start") or "").startswith(f"day {day} "):
        return False
    g = {k: v for k, v in got.items() if v is not None and not (k == "start" and day is not None)}
    return g == {k: v for k, v in want.items() if v is not None}


def judge(reading: Reading, expect: dict) -> str:
    """The verdict of one reading against one expectation."""
    got_ops = [o.model_dump(exclude_defaults=True) | {"op": o.op} for o in reading.ops]
    if "control" in expect:
        return "exact" if reading.control == expect["control"] else (
            "wrong_target" if got_ops else "wrong_control")
    if "ask" in expect:  # a proposal (an amount the line left out) waits for "ok": it is asked, not applied
        return "exact" if (not got_ops or reading.assumed) and reading.control is None else "applied_not_asked"
    if reading.assumed:
        return "refused"
    want = expect["ops"]
    if len(got_ops) == len(want) and all(_op_matches(g, w) for g, w in zip(got_ops, want, strict=True)):
        return "exact"
    return "wrong_target" if got_ops else "refused"


def score(file: str = "half_a.yaml", reader: str = "legacy") -> list[Outcome]:
    spec = load_state()
    read = READERS[reader]
    out = []
    for case in yaml.safe_load((DIR / file).read_text()):
        try:
            reading = read(case["request"], spec) if reader == "legacy" else read(case["request"], spec,
                                                                                     case.get("last"))
        except Exception as exc:  # noqa: BLE001 - a crash is a refusal of that request, reported
            reading = Reading(ask=Ask(question=f"crash: {exc}"))
        got = str([o.model_dump(exclude_defaults=True) | {"op": o.op} for o in reading.ops] if reading.ops else
                  reading.model_dump(exclude_defaults=True))
        out.append(Outcome(case["id"], judge(reading, case["expect"]), got, str(case["expect"])))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default="half_a.yaml")
    ap.add_argument("--reader", default="legacy", choices=sorted(READERS))
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args(argv)
    outcomes = score(a.file, a.reader)
    n = len(outcomes)
    counts = {v: sum(o.verdict == v for o in outcomes) for v in
              ("exact", "wrong_target", "applied_not_asked", "refused", "wrong_control")}
    print(f"{a.reader} on {a.file}: exact {counts['exact']}/{n} ({100 * counts['exact'] / n:.1f}%); applied to the "
          f"wrong target {counts['wrong_target']}; applied where it should ask {counts['applied_not_asked']}; "
          f"refused {counts['refused']}; wrong control {counts['wrong_control']}")
    if a.v:
        for o in outcomes:
            if o.verdict != "exact":
                print(f"  {o.verdict:18s} {o.id}\n      got  {o.got}\n      want {o.want}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
