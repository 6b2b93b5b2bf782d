"""Hostile specs: SQL in every kind of name, traversal paths, alias bombs, huge id formats and
counts, NaN/inf, deep nesting, a 5000-term formula, year 9999, infinite bounds, an incident naming
a missing entity. Each must make `chronoeval generate` exit 2 with a message naming the YAML path,
with no traceback, and write nothing anywhere: the directory around the output (and the working
directory, where a relative `COPY ... TO 'PWNED'` would land) is listed before and after."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from graph.cli import app

SAMPLE = Path(__file__).parent / "sample_iot.yaml"
SQL = 'x" AS a FROM _shard; COPY (SELECT 42 AS pwned) TO \'PWNED\' (FORMAT CSV); SELECT 1 AS "b'
SQL_LIT = "x'); COPY (SELECT 42) TO 'PWNED' (FORMAT CSV); --"
INCIDENT = {"kind": "spike", "id": "spike_one", "target": {"entity": "sensor", "random": 1},
            "window": {"start": "day 1 06:00", "duration": "1h"}, "effects": {"temperature": "+50%"}}


def _base() -> dict:
    return yaml.safe_load(SAMPLE.read_text())


def _set(path: str, value):
    """A mutation of the sample spec: ``path`` like ``entities.0.measurements.0.name``."""
    def mutate(d: dict) -> dict:
        d = copy.deepcopy(d)
        *parents, last = path.split(".")
        node = d
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node.setdefault(p, {})
        node[int(last) if isinstance(node, list) else last] = value
        return d
    return mutate


def _rename_state(new: str):
    def mutate(d: dict) -> dict:
        sm = copy.deepcopy(d)["entities"][0]["states"]
        sm["states"][new] = sm["states"].pop("offline")
        sm["transitions"] = {(new if k == "offline" else k): {(new if t == "offline" else t): p for t, p in row.items()}
                             for k, row in sm["transitions"].items()}
        sm["overrides"][0]["transitions"]["operational"] = {"warning": 0.5, new: 0.5}
        out = copy.deepcopy(d)
        out["entities"][0]["states"] = sm
        return out
    return mutate


def _with_incident(**changes):
    def mutate(d: dict) -> dict:
        d = copy.deepcopy(d)
        inc = {**copy.deepcopy(INCIDENT), **changes}
        d["incidents"] = [inc]
        return d
    return mutate


def _many(*mutations):
    def mutate(d: dict) -> dict:
        for m in mutations:
            d = m(d)
        return d
    return mutate


TERMS = " + ".join(["temperature"] * 5000)
BOMB = "\n".join(["name: bomb", 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
                 + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]) + "\n"

# case -> (mutation of the sample dict or raw YAML text, YAML path in the message, message fragment)
CASES: dict[str, tuple[object, str, str]] = {
    "sql_measurement": (_set("entities.0.measurements.0.name", SQL), "entities[0].measurements[0].name",
                        "not an identifier"),
    "sql_table": (_set("entities.0.table", SQL), "entities[0].table", "not an identifier"),
    "sql_static_table": (_set("entities.0.static_table", SQL_LIT), "entities[0].static_table", "not an identifier"),
    "sql_entity": (_set("entities.0.name", SQL), "entities[0].name", "not an identifier"),
    "sql_id_column": (_set("entities.0.id.column", SQL_LIT), "entities[0].id.column", "not an identifier"),
    "sql_timestamp_column": (_set("entities.0.emission.timestamp_column", SQL), "entities[0].emission.timestamp_column",
                             "not an identifier"),
    "sql_state_column": (_set("entities.0.states.column", SQL), "entities[0].states.column", "not an identifier"),
    "sql_state_name": (_rename_state(SQL_LIT), "entities[0].states.states", "not a label"),
    "semicolon_state_name": (_rename_state("off;line"), "entities[0].states.states", "not a label"),
    "sql_attribute": (_many(_set("entities.0.attributes.1.name", SQL_LIT),
                            _set("entities.0.states.overrides.0.when.0.attribute", SQL_LIT)),
                      "entities[0].attributes[1].name", "not an identifier"),
    "sql_derived_column": (_set("entities.0.states.derived_columns", {SQL: {"offline": "down"}}),
                           "entities[0].states.derived_columns", "not an identifier"),
    "sql_flag": (_set("entities.0.states.flags", {SQL: {"ever_in": ["offline"]}}), "entities[0].states.flags",
                 "not an identifier"),
    "sql_exemplar_column": (_set("entities.0.exemplar_column", SQL), "entities[0].exemplar_column", "not an identifier"),
    "sql_incident_id": (_with_incident(id=SQL_LIT), "incidents[0].id", "not a label"),
    "traversal_incident_id": (_with_incident(id="../../evil"), "incidents[0].id", "not a label"),
    "sql_persona": (_set("personas", [{"name": SQL_LIT}]), "personas[0].name", "not a label"),
    "sql_exemplar": (_set("exemplars", [{"name": SQL_LIT, "entity": "sensor", "count": 1}]), "exemplars[0].name",
                     "not a label"),
    "sql_epoch": (_many(_set("exemplars", [{"name": "fast", "entity": "sensor"}]),
                        _set("epochs", [{"name": SQL_LIT, "entity": "sensor", "end": "1d", "count": 5,
                                         "blend": {"base": 1.0}}])), "epochs[0].name", "not a label"),
    "traversal_spec_name": (_set("name", "../../x"), "name", "not a label"),
    "traversal_table_relative": (_set("entities.0.table", "../../x"), "entities[0].table", "not an identifier"),
    "traversal_table_absolute": (_set("entities.0.table", "/tmp/abs/x"), "entities[0].table", "not an identifier"),
    "case_folded_tables": (_set("entities.0.static_table", "Readings"), "entities", "differ only in case"),
    "case_folded_columns": (_set("entities.0.attributes.1.name", "Zone"), "entities[0]", "differ only in case"),
    "reserved_baseline_suffix": (_set("entities.0.table", "readings__baseline"), "entities[0]", "reserves"),
    "huge_id_format": (_set("entities.0.id.format", "S{i:>20000000}"), "entities[0].id.format", "longer than 64"),
    "id_format_other_field": (_set("entities.0.id.format", "S{i}{0.__class__}"), "entities[0].id.format", "only the field"),
    "huge_count": (_set("entities.0.count", 10**12), "entities[0].count", "more than the limit"),
    "row_budget": (_many(_set("entities.0.count", 5_000_000), _set("entities.0.emission.cadence", "1s")),
                   "entities[0]", "raise the cadence"),
    "one_second_for_a_year": (_many(_set("entities.0.emission.cadence", "1s"), _set("horizon", "365d")),
                              "entities[0].emission.cadence", "per entity"),
    "nan_base": (_set("entities.0.measurements.0.base", float("nan")), "entities[0].measurements[0].base",
                 "finite number"),
    "inf_bounds": (_set("entities.0.measurements.0.bounds", [float("-inf"), float("inf")]),
                   "entities[0].measurements[0].bounds", "finite number"),
    "inf_sigma": (_set("entities.0.measurements.0.noise.sigma", float("inf")), "entities[0].measurements[0].noise.sigma",
                  "finite number"),
    "year_9999": (_set("start", "9999-12-31T00:00:00Z"), "horizon", "supported years"),
    "huge_horizon": (_set("horizon", "9" * 400 + "d"), "horizon", "longer than 1000 years"),
    "huge_lognormal_sigma": (_set("entities.0.states.states.warning.dwell.sigma", 1e6),
                             "entities[0].states.states.warning.dwell.sigma", "less than or equal to 10"),
    "formula_5000_terms": (_set("entities.0.measurements", [{"name": "temperature", "base": 20},
                                                             {"name": "total", "formula": TERMS}]),
                           "entities[0].measurements[1].formula", "limited to 1000"),
    "formula_deep_parens": (_set("entities.0.measurements", [{"name": "temperature", "base": 20},
                                                              {"name": "total", "formula": "(" * 300 + "temperature"
                                                               + ")" * 300}]),
                            "entities[0].measurements[1].formula", "nest"),
    "incident_missing_entity": (_with_incident(target={"entity": "ghost", "random": 1}), "incidents[0].target.entity",
                                "unknown entity type 'ghost'"),
    "alias_bomb": (BOMB, "(top level)", "alias bomb"),
    "recursive_alias": ("name: r\nentities: &e [*e]\n", "(top level)", "recursive alias"),
    "deep_yaml": (SAMPLE.read_text() + "description: " + "[" * 5000 + "]" * 5000 + "\n", "invalid spec", "nest"),
    "huge_file": (SAMPLE.read_text() + "# " + "x" * 1_100_000 + "\n", "(top level)", "larger than 512 KB"),
}


def _listing(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_spec_exits_2_and_writes_nothing(case, tmp_path, monkeypatch):
    mutation, path, fragment = CASES[case]
    text = mutation if isinstance(mutation, str) else yaml.safe_dump(mutation(_base()), sort_keys=False)
    spec = tmp_path / "specs" / "hostile.yaml"
    spec.parent.mkdir()
    spec.write_text(text)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    before = _listing(tmp_path)
    for command in (["validate", spec], ["generate", spec, "-o", work / "out" / "bundle"]):
        res = CliRunner().invoke(app, [str(a) for a in command])
        err = " ".join(res.stderr.split())
        assert res.exit_code == 2, (command[0], res.exit_code, err[:2000], res.exception)
        assert "Traceback" not in res.stderr and "internal error" not in err
        assert str(spec) in err and path in err and fragment in err, err[:2000]
        assert len(res.stderr) < 5000, "the message stays readable"
    assert _listing(tmp_path) == before
    assert not (Path("/tmp/abs")).exists()
