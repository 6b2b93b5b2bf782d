"""open_bundle: one typed Bundle (spec, incidents, manifest, tables, DuckDB on first use) for every
command; a directory that is not a bundle gets a BundleError naming the file and the fix."""

from __future__ import annotations

import json
import shutil

import pytest

from knowledge.packs import load_pack
from tools.bundle import files
from tools.bundle.opened import BundleError, bundle_schema, open_bundle
from tools.bundle.tables import write_tables
from tools.generate import generate_bundle


@pytest.fixture(scope="module")
def iot(tmp_path_factory):
    out = tmp_path_factory.mktemp("opened") / "iot"
    generate_bundle(load_pack("iot"), out, scale=0.1, force=True)
    return out


def test_file_names_are_the_documented_contract():
    # users' scripts read these names (docs/ARCHITECTURE.md "Bundle layout"): renaming one is a contract change
    assert (files.SPEC, files.DATA_DIR, files.DATA_DB, files.INCIDENTS, files.CHECKS, files.QA, files.SUITE_HEADER,
            files.REPORT, files.FIGURES_DIR, files.MANIFEST, files.HOLDOUT_DIR) == (
        "spec.yaml", "data", "data.duckdb", "incidents.json", "checks.json", "qa.jsonl", "suite.json", "report.md",
        "figures", "manifest.json", "holdout")


def test_open_bundle_reads_spec_incidents_manifest_and_tables(iot):
    b = open_bundle(iot, connect_now=False)
    assert b._con is None  # DuckDB is opened on first use
    assert b.spec.name == load_pack("iot").name
    assert b.incidents == json.loads((iot / "incidents.json").read_text())["incidents"] and b.incidents
    assert b.manifest == json.loads((iot / "manifest.json").read_text())
    assert set(b.manifest["tables"]) <= b.tables  # the first use of con
    assert b._con is not None and b.one("SELECT current_setting('TimeZone')")[0] == "UTC"
    assert b.db_path == iot / "data.duckdb" and b.qa_path == iot / "qa.jsonl" and b.path(files.SPEC) == iot / "spec.yaml"
    b.close()


def test_schema_and_tables_as_files(iot, tmp_path):
    schema = bundle_schema(iot)
    assert set(json.loads((iot / "manifest.json").read_text())["tables"]) <= set(schema)
    paths = write_tables(iot, tmp_path, "csv")
    assert sorted(p.stem for p in paths) == sorted(schema)
    first = paths[0].read_text().splitlines()[0].split(",")
    assert first == [c for c, _ in schema[paths[0].stem]]


@pytest.mark.parametrize("damage, message", [
    (lambda d: (d / "data.duckdb").unlink(), r"is not a chronoeval bundle \(no data.duckdb\)"),
    (lambda d: (d / "spec.yaml").write_text("name: [unclosed\n"), r"spec.yaml is not a valid spec"),
    (lambda d: (d / "incidents.json").write_text("{oops"), r"incidents.json is not valid JSON \(line 1\)"),
    (lambda d: (d / "data.duckdb").write_bytes(b"not a database" * 100), r"data.duckdb cannot be opened"),
])
def test_damaged_bundles_give_a_bundle_error_naming_the_file(iot, tmp_path, damage, message):
    d = tmp_path / "copy"
    shutil.copytree(iot, d)
    damage(d)
    with pytest.raises(BundleError, match=message):
        open_bundle(d)


def test_a_missing_directory_is_named(tmp_path):
    with pytest.raises(BundleError, match="is not a directory"):
        open_bundle(tmp_path / "nowhere")
    with pytest.raises(BundleError, match="has no data.duckdb"):
        bundle_schema(tmp_path)
