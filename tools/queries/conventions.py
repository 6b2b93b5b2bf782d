"""The suite header (``suite.json`` beside ``qa.jsonl``): conventions stated once for every question.

Natural questions are short because what they leave out is fixed here: the time zone, what a
period includes, what a row is called per table, units, rounding defaults and the meaning of the
derived terms many questions share (an episode, entering a state). The harness gives the
``preamble`` text to every agent-under-test (``chronoeval eval --context``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tools.bundle.files import SPEC, SUITE_HEADER
from tools.queries.catalog import Catalog
from tools.queries.composite import key_format
from tools.queries.render import humanize, plural, unit_words

SUITE_FILE = SUITE_HEADER
HEADER_VERSION = 1

CONVENTIONS = [
    "All times are UTC.",
    "A period 'from A to B' or 'A-B' includes A and excludes B (half-open); '24:00' is 00:00 of the next day; "
    "'on 2 January' is that whole UTC day (00:00 included to 00:00 on 3 January excluded); 'from 2 January "
    "to 4 January (whole days)' covers those days entirely, up to 00:00 on 5 January excluded.",
    "A question that names no period covers all the data.",
    "Numbers are in the measurement's unit listed below; thresholds such as 'above 90' are strict "
    "('at least' and 'at most' include the value).",
    "A reading or an event is one row of the table; 'per <entity>' means per distinct id of that entity.",
    "An entity 'enters' a state at a row in that state whose previous row of the same entity (over all "
    "the data) was not in it, or at its very first row.",
    "An episode of a state is a maximal run of consecutive rows of one entity in that state; it ends at "
    "the entity's next row that is not in it.",
    "Unless the question's evidence says otherwise: durations to the nearest second, percentages and "
    "other numbers to 2 decimals, counts as whole numbers.",
]


def suite_header(catalog: Catalog, year: int) -> dict[str, Any]:
    """The suite header of a bundle's catalog: conventions, entity nouns, row nouns, units."""
    tables = {}
    for t in catalog.tables.values():
        tables[t.name] = {
            "entity": t.noun, "entities": plural(t.noun), "id": t.entity, "time": t.time,
            "rows": "readings" if t.periodic else "events",
            **({"cadence_seconds": t.cadence_s} if t.cadence_s else {}),
            "units": {k.name: unit_words(k.unit) or "count" for k in t.keys},
            "names": {k.name: humanize(k.name) for k in t.keys},
            "states": {s.name: list(s.values) for s in t.states},
        }
        if t.entity_parts:  # a composite key: answers name an entity by all its id columns, in one format
            tables[t.name]["key"] = [t.entity, *t.entity_parts]
            tables[t.name]["key_format"] = key_format(t.entity, t.entity_parts)
    for e in catalog.spec.entities:
        if e.static_table_name and e.static_table_name not in tables:
            tables[e.static_table_name] = {
                "entity": e.name.replace("_", " "), "entities": plural(e.name.replace("_", " ")), "id": e.id.column,
                "static": True, "attributes": [a.name for a in e.attributes if a.in_static]}
    from tools.queries.closed import closed_conventions, is_closed

    closed = is_closed(catalog.spec)
    header = {"version": HEADER_VERSION, "time_zone": "UTC", "year": year,
              "window_bounds": "closed" if closed else "half-open",
              "rounding": {"duration": "nearest second", "number": 2, "percentage": 2, "count": 0},
              "conventions": [*(closed_conventions(CONVENTIONS) if closed else CONVENTIONS),
                              f"Dates without a year are in {year}."], "tables": tables}
    header["preamble"] = preamble_text(header)
    return header


def preamble_text(header: dict[str, Any]) -> str:
    """The preamble an agent reads before every question."""
    lines = ["Conventions for every question:"]
    lines += [f"- {c}" for c in header["conventions"]]
    lines.append("Tables:")
    for name, t in header["tables"].items():
        if t.get("static"):
            attrs = ", ".join(t.get("attributes", []))
            lines.append(f"- {name}: one row per {t['entity']} (id {t['id']}); attributes: {attrs}.")
            continue
        said = t.get("names", {})
        meas = ", ".join(f"{said.get(k, k)} ({k}{'' if u == 'count' else ', ' + u})" for k, u in t["units"].items())
        ident = f"id {t['id']}" if "key" not in t else \
            f"id {' + '.join(t['key'])}, one {t['entity']} named {t['key_format']} in answers"
        parts = [f"one row per {t['rows'][:-1]} of a {t['entity']} ({ident}), time column {t['time']}"]
        if meas:
            parts.append(f"measurements as questions name them (column, unit): {meas}")
        for col, vals in t.get("states", {}).items():
            parts.append(f"{col} values: {', '.join(vals)}")
        lines.append(f"- {name}: " + "; ".join(parts) + ".")
    return "\n".join(lines)


def write_header(bundle: Path | str, header: dict[str, Any]) -> Path:
    """Write ``suite.json`` atomically."""
    from tools.bundle.atomic import atomic_write_text

    path = Path(bundle) / SUITE_FILE
    atomic_write_text(path, json.dumps(header, indent=2, sort_keys=True) + "\n")
    return path


def read_preamble(bundle: Path | str) -> str:
    """The preamble of a bundle's suite ('' when the bundle has no suite header and no spec)."""
    return load_header(bundle).get("preamble", "")


def load_header(bundle: Path | str) -> dict[str, Any]:
    """A bundle's suite header: ``suite.json``, or (suites built before it existed) one made from
    its spec.yaml; {} when the bundle has neither."""
    bundle = Path(bundle)
    path = bundle / SUITE_FILE
    if path.exists():
        return json.loads(path.read_text())
    if not (bundle / SPEC).exists():
        return {}
    from tools.queries.catalog import build_catalog
    from tools.spec.io import load_spec

    spec = load_spec(bundle / SPEC)
    return suite_header(build_catalog(spec), spec.start_dt.year)
