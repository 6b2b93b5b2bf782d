"""The `chronoeval` CLI in-process (typer's CliRunner): packs, init, validate, schema, generate.

Pack tests run against a private pack directory (a copy of the sample spec) so they do not depend
on the built-in packs being edited elsewhere; one test also smoke-checks the real packs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import graph.cli as cli
from graph.cli import app, spec_tables
from knowledge.packs import list_packs
from tools.spec import load_spec

SAMPLE = Path(__file__).parents[1] / "tools" / "spec" / "sample_iot.yaml"
HEADER = "# A tiny IoT pack for the CLI tests.\n# Comments must survive `chronoeval init`.\n"


def run(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture
def fake_packs(tmp_path, monkeypatch) -> Path:
    """A pack directory holding `mini` (valid, with comments) and `broken` (invalid)."""
    d = tmp_path / "packs"
    d.mkdir()
    (d / "mini.yaml").write_text(HEADER + SAMPLE.read_text())
    (d / "broken.yaml").write_text("name: broken\nentities: []\n")
    monkeypatch.setattr("knowledge.packs.pack_dir", lambda: d)
    return d


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> tuple[Path, object]:
    """One generated bundle of the sample spec, shared by the read-only checks."""
    out = tmp_path_factory.mktemp("bundle") / "out"
    result = run("generate", SAMPLE, "-o", out)
    assert result.exit_code == 0, result.stderr
    return out, result


# ---------------------------------------------------------------- packs / init


def test_packs_lists_packs(fake_packs):
    result = run("packs")
    assert result.exit_code == 0, result.stderr
    assert "mini" in result.stdout and "sensor" in result.stdout
    assert "sensors, readings" in result.stdout and "2d" in result.stdout
    assert "broken" in result.stdout and "invalid pack" in result.stdout


def test_packs_lists_the_builtin_packs():
    names = list_packs()
    if not names:
        pytest.skip("no built-in packs yet")
    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["packs"])
    assert result.exit_code == 0, result.stderr
    for name in names:
        assert name in result.stdout


def test_init_copies_the_pack_text(fake_packs, tmp_path):
    target = tmp_path / "new" / "spec.yaml"
    result = run("init", "--pack", "mini", "-o", target)
    assert result.exit_code == 0, result.stderr
    assert target.read_text() == (fake_packs / "mini.yaml").read_text(), "copied verbatim, comments included"
    assert target.read_text().startswith(HEADER)
    assert run("validate", target).exit_code == 0
    assert sorted(p.name for p in target.parent.iterdir()) == ["spec.yaml"]


def test_init_refuses_to_overwrite(fake_packs, tmp_path):
    target = tmp_path / "spec.yaml"
    target.write_text("mine\n")
    result = run("init", "--pack", "mini", "-o", target)
    assert result.exit_code == 2
    assert "already exists" in result.stderr and "--force" in result.stderr
    assert target.read_text() == "mine\n"
    result = run("init", "--pack", "mini", "-o", target, "--force")
    assert result.exit_code == 0, result.stderr
    assert target.read_text().startswith(HEADER)


def test_init_unknown_pack(fake_packs, tmp_path):
    result = run("init", "--pack", "nope", "-o", tmp_path / "spec.yaml")
    assert result.exit_code == 2
    assert "no such pack" in result.stderr and "mini" in result.stderr
    assert not (tmp_path / "spec.yaml").exists()


# ---------------------------------------------------------------- validate / schema


def test_validate_ok():
    result = run("validate", SAMPLE)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "ok: mini_iot — 1 entity type, 2 tables"


def test_validate_pack_by_name(fake_packs):
    assert "ok: mini_iot" in run("validate", "mini").stdout
    result = run("validate", "broken")
    assert result.exit_code == 2
    assert "entities" in result.stderr and "Traceback" not in result.stderr


def test_validate_missing_file(tmp_path):
    result = run("validate", tmp_path / "nope.yaml")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and "nope.yaml" in result.stderr and "file not found" in result.stderr


def test_schema_prints_json_schema():
    result = run("schema")
    assert result.exit_code == 0, result.stderr
    schema = json.loads(result.stdout)
    assert "properties" in schema and "entities" in schema["properties"]


# ---------------------------------------------------------------- generate


def test_generate_writes_the_bundle(bundle):
    out, result = bundle
    assert (out / "spec.yaml").is_file() and (out / "data.duckdb").is_file()
    manifest = json.loads((out / "manifest.json").read_text())
    parquet = sorted(p.stem for p in (out / "data").glob("*.parquet"))
    assert parquet == sorted(spec_tables(load_spec(SAMPLE))) == sorted(manifest["tables"])
    assert load_spec(out / "spec.yaml").name == "mini_iot"
    # the summary: one row per table, then the totals
    total = sum(t["rows"] for t in manifest["tables"].values())
    for name, t in manifest["tables"].items():
        assert name in result.stdout and t["kind"] in result.stdout
    assert f"{total:,} rows in 2 tables" in result.stdout
    assert "2026-01-01 00:00" in result.stdout
    assert "Traceback" not in result.stderr


def test_generate_refuses_existing_dir(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("precious")
    result = run("generate", SAMPLE, "-o", out)
    assert result.exit_code == 2
    assert "already exists" in result.stderr and "--force" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    assert (out / "keep.txt").read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_generate_force_replaces(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "stale.txt").write_text("old")
    result = run("generate", SAMPLE, "-o", out, "--force", "--seed", "11")
    assert result.exit_code == 0, result.stderr
    assert not (out / "stale.txt").exists()
    assert json.loads((out / "manifest.json").read_text())["seed"] == 11
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def _boom(*args, **kwargs):
    raise RuntimeError("disk on fire")


def test_generate_failure_midway_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr("tools.generate.bundle.write_manifest", _boom)
    out = tmp_path / "out"
    result = run("generate", SAMPLE, "-o", out)
    assert result.exit_code == 1
    assert "internal error: RuntimeError: disk on fire" in result.stderr
    assert "--debug" in result.stderr and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == [], "no OUT and no temp sibling"


def test_generate_failure_midway_keeps_the_old_bundle(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("precious")
    monkeypatch.setattr("tools.generate.bundle.write_manifest", _boom)
    result = run("generate", SAMPLE, "-o", out, "--force")
    assert result.exit_code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_debug_shows_internal_traceback(tmp_path, monkeypatch):
    monkeypatch.setattr("tools.generate.bundle.write_manifest", _boom)
    result = run("--debug", "generate", SAMPLE, "-o", tmp_path / "out")
    assert result.exit_code == 1
    assert "Traceback (most recent call last)" in result.stderr and "_boom" in result.stderr
    assert "internal error: RuntimeError: disk on fire" in result.stderr


def test_debug_flag_does_not_stick(tmp_path):
    assert run("--debug", "validate", tmp_path / "nope.yaml").exit_code == 2
    result = run("validate", tmp_path / "nope.yaml")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args, option", [
    (["--scale", "0"], "--scale"),
    (["--scale", "-1.5"], "--scale"),
    (["--scale", "nan"], "--scale"),
    (["--seed", "-1"], "--seed"),
    (["--seed", "abc"], "--seed"),
])
def test_generate_bad_option_values(tmp_path, args, option):
    result = run("generate", SAMPLE, "-o", tmp_path / "out", *args)
    assert result.exit_code == 2
    assert option in result.stderr and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_generate_output_under_a_file(tmp_path):
    (tmp_path / "afile").write_text("x")
    result = run("generate", SAMPLE, "-o", tmp_path / "afile" / "out")
    assert result.exit_code == 2, result.stderr
    assert "afile is a file, not a directory" in result.stderr and "Traceback" not in result.stderr


def test_generate_pack_by_name(fake_packs, tmp_path):
    result = run("generate", "mini", "-o", tmp_path / "out", "--scale", "0.4")
    assert result.exit_code == 0, result.stderr
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["scale"] == 0.4


def test_main_entry_point(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["chronoeval", "validate", str(SAMPLE)])
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code == 0
    assert "ok: mini_iot" in capsys.readouterr().out



def test_a_typer_bad_parameter_inside_errors_is_a_usage_error_not_an_internal_error():
    from graph.cli_base import errors

    demo = typer.Typer()

    @demo.command()
    def go(n: int = 1) -> None:
        with errors():
            raise typer.BadParameter("must be even", param_hint="--n")

    r = CliRunner().invoke(demo, ["--n", "3"])
    assert r.exit_code == 2 and "must be even" in r.output and "internal error" not in r.output
