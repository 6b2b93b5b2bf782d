"""The malformed-spec corpus, run through the CLI: each file is a small variation of a valid spec.

For every file `chronoeval generate FILE -o OUT` must exit 2 with a message that names the file,
the YAML path (and line, where the line is unambiguous) and the problem, print no traceback, and
leave nothing behind: no OUT, no temp sibling. Every file goes through the CLI in-process (typer's
CliRunner); a representative subset also runs as real `python -m graph.cli` subprocesses,
concurrently, to cover the real entry point, stderr and exit status.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graph.cli import app
from tools.spec import SpecError, load_spec

HERE = Path(__file__).parent
BAD = HERE / "bad_specs"
REPO = HERE.parents[2]

# file -> (path fragment, message fragment, line or None).
# line is None where the reported line is a matter of taste (a problem about a whole block).
EXPECTED: dict[str, tuple[str, str, int | None]] = {
    "yaml_syntax.yaml": ("line 8, column 5", "not valid YAML", None),
    "top_level_list.yaml": ("(top level)", "must be a YAML mapping", None),
    "empty_file.yaml": ("(top level)", "must be a YAML mapping", None),
    "unknown_field_typo.yaml": ("horizn", "unknown field 'horizn'", 3),
    "missing_required.yaml": ("entities[0].id", "required field is missing", 5),
    "wrong_type.yaml": ("entities[0].count", "must be a whole number", 11),
    "zero_entities.yaml": ("entities[0].count", "greater than 0", 11),
    "probabilities_not_summing.yaml": ("entities[0].states.transitions.warning", "must sum to 1", 26),
    "unknown_target_state.yaml": ("entities[0].states.transitions.operational.warnin", "unknown state 'warnin'", 25),
    "initial_state_undefined.yaml": ("entities[0].states.initial", "unknown state 'idle'", 19),
    "unreachable_state.yaml": ("entities[0].states.states", "maintenance can never be reached", None),
    "nonterminal_without_dwell.yaml": ("entities[0].states.states.warning.dwell", "needs a dwell distribution", 22),
    "negative_duration.yaml": ("entities[0].states.states.operational.dwell.mean", "negative", 21),
    "malformed_duration.yaml": ("entities[0].emission.cadence", "'15 minutes' is not a duration", 28),
    "unknown_distribution_kind.yaml": ("entities[0].states.states.offline.dwell", "'weibull'", 23),
    "periodic_without_cadence.yaml": ("entities[0].emission", "needs a cadence", 28),
    "override_unknown_attribute.yaml": ("entities[0].states.overrides[0].when[0].attribute",
                                        "unknown attribute 'firmwre'", 29),
    "fk_cycle.yaml": ("entities", "foreign-key relations form a cycle", None),
    "fk_to_itself.yaml": ("entities[0].attributes", "foreign key to itself", None),
    "fk_unknown_entity.yaml": ("entities[1].attributes[0].dist.entity", "unknown entity type 'gatway'", 18),
    "formula_unknown_name.yaml": ("entities[0].measurements[1].formula", "unknown name(s) humidty", 38),
    "formula_cycle.yaml": ("entities[0].measurements", "cycle", None),
    "ar_nonstationary.yaml": ("entities[0].measurements[0].noise", "not stationary", 34),
    "epoch_blend_not_summing.yaml": ("epochs[0].blend", "sum to 1", 46),
    "exemplar_unknown_entity.yaml": ("exemplars[0].entity", "unknown entity type 'sensors'", 39),
    "duplicate_columns.yaml": ("entities[0]", "temperature appear twice in table 'readings'", 7),
    "timestamp_without_zone.yaml": ("start", "has no time zone", 4),
    "on_transition_without_states.yaml": ("entities[0].emission", "needs a state machine", 12),
}

# One per kind of failure: YAML syntax, top level, structure (pydantic), state machine, relations, assembly.
SUBPROCESS = ["yaml_syntax.yaml", "top_level_list.yaml", "unknown_field_typo.yaml",
              "probabilities_not_summing.yaml", "fk_cycle.yaml", "epoch_blend_not_summing.yaml"]

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "graph.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[subprocess.CompletedProcess, Path]]:
    """Every subprocess of this module, run concurrently: `generate FILE -o <own tmp>/out` per
    SUBPROCESS file, plus `--debug generate` (key "debug") and `validate` (key "validate")."""
    jobs = {name: ["generate", str(BAD / name)] for name in SUBPROCESS}
    jobs["debug"] = ["--debug", "generate", str(BAD / "unknown_field_typo.yaml")]
    jobs["validate"] = ["validate", str(BAD / "probabilities_not_summing.yaml")]

    def one(key: str):
        work = tmp_path_factory.mktemp(key.removesuffix(".yaml"))
        args = jobs[key] + (["-o", str(work / "out")] if "generate" in jobs[key] else [])
        return key, (_cli(*args, cwd=REPO), work)

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        return dict(pool.map(one, jobs))


def test_corpus_is_complete():
    files = {p.name for p in BAD.glob("*.yaml")}
    assert files == set(EXPECTED), "every bad spec needs an expectation, and every expectation a file"
    assert len(files) >= 18


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_library_names_the_problem(name):
    path, message, line = EXPECTED[name]
    with pytest.raises(SpecError) as info:
        load_spec(BAD / name)
    report = str(info.value)
    assert report.startswith(str(BAD / name)), report
    assert path in report and message in report, report
    if line is not None:
        assert f"line {line}, " in report, report


def _check_user_error(name: str, code: int, out: str, err: str, work: Path) -> None:
    path, message, line = EXPECTED[name]
    err = ANSI.sub("", err)
    assert code == 2, (code, out, err)
    assert "Traceback" not in err and "Traceback" not in out
    assert err.startswith("error: "), err
    assert name in err, "the message names the file"
    assert path in err and message in err, err
    if line is not None:
        assert f"line {line}, " in err, err
    assert not (work / "out").exists()
    assert list(work.iterdir()) == [], "no temp siblings may be left behind"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_cli_reports_user_error(name, tmp_path):
    result = CliRunner().invoke(app, ["generate", str(BAD / name), "-o", str(tmp_path / "out")])
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    _check_user_error(name, result.exit_code, result.stdout, result.stderr, tmp_path)


@pytest.mark.parametrize("name", SUBPROCESS)
def test_real_cli_reports_user_error(name, runs):
    proc, work = runs[name]
    _check_user_error(name, proc.returncode, proc.stdout, proc.stderr, work)


def test_debug_shows_traceback(runs):
    proc, work = runs["debug"]
    err = ANSI.sub("", proc.stderr)
    assert proc.returncode == 2
    assert "Traceback (most recent call last)" in err
    assert "SpecError" in err and "horizn" in err
    assert list(work.iterdir()) == []


def test_validate_command_reports_the_same(runs):
    proc, _ = runs["validate"]
    assert proc.returncode == 2
    assert "entities[0].states.transitions.warning" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_block_problem_points_at_its_key():
    with pytest.raises(SpecError) as info:
        load_spec(BAD / "unreachable_state.yaml")
    # line 20 is `      states:` (the block holding the unreachable `maintenance`); 21 is its first child.
    assert "line 20, entities[0].states.states" in str(info.value)
