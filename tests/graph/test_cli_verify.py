"""`chronoeval verify` and the integrity check of every bundle-reading command: an edited answer,
edited data, a truncated Parquet file or a garbage manifest stop the command with exit 2 naming the
file; `verify --allow-modified` records deliberate edits; two writers of one bundle: one exits 2."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graph.cli import app

SAMPLE = Path(__file__).parents[1] / "tools" / "spec" / "sample_iot.yaml"
REPO = Path(__file__).parents[2]


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("verify") / "b"
    assert run("generate", SAMPLE, "-o", out).exit_code == 0
    res = run("queries", out, "--n", "6")
    assert res.exit_code == 0, res.stderr
    return out


@pytest.fixture
def bundle(pristine, tmp_path) -> Path:
    out = tmp_path / "b"
    shutil.copytree(pristine, out)
    return out


def _edit_answer(b: Path) -> str:
    lines = (b / "qa.jsonl").read_text().splitlines()
    rec = json.loads(lines[0])
    rec["answer"] = "edited"
    (b / "qa.jsonl").write_text("\n".join([json.dumps(rec), *lines[1:]]) + "\n")
    return "qa.jsonl"


def _edit_data(b: Path) -> str:
    p = next((b / "data").glob("*.parquet"))
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))
    return f"data/{p.name}"


def _truncate_parquet(b: Path) -> str:
    p = max((b / "data").glob("*.parquet"), key=lambda f: f.stat().st_size)  # the event/metric table
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])
    return f"data/{p.name}"


def _garbage_manifest(b: Path) -> str:
    (b / "manifest.json").write_text("{\x00 not json")
    return "manifest.json"


CORRUPTIONS = [_edit_answer, _edit_data, _truncate_parquet, _garbage_manifest]


def test_intact_bundle_verifies(bundle):
    res = run("verify", bundle, "--full")
    assert res.exit_code == 0, res.stderr
    assert "intact" in res.stderr + res.stdout


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("command", [["verify"], ["check"], ["queries", "--n", "6"], ["paraphrase"],
                                     ["export", "--format", "csv"]], ids=lambda c: c[0])
def test_reading_commands_stop_on_a_corrupted_bundle(bundle, corrupt, command):
    run("verify", bundle)  # warm the size+mtime cache: the edit must still be caught
    name = corrupt(bundle)
    before = (bundle / "qa.jsonl").read_bytes()
    res = run(command[0], bundle, *command[1:])
    assert res.exit_code == 2, res.stderr
    assert str(bundle / name) in res.stderr.replace("\n", "")
    assert "Traceback" not in res.stderr
    assert (bundle / "qa.jsonl").read_bytes() == before
    assert not (bundle / "exports").exists()


def test_allow_modified_records_a_deliberate_edit(bundle):
    _edit_answer(bundle)
    assert run("verify", bundle).exit_code == 2
    res = run("verify", bundle, "--allow-modified")
    assert res.exit_code == 0, res.stderr
    assert "qa.jsonl: new sha256 recorded" in res.stderr.replace("\n", "")
    assert run("verify", bundle, "--full").exit_code == 0
    assert run("export", bundle, "--format", "csv").exit_code == 0


def test_writing_commands_keep_the_manifest_true(bundle):
    assert run("check", bundle).exit_code == 0
    assert run("queries", bundle, "--n", "6", "--seed", "3").exit_code == 0
    assert run("paraphrase", bundle, "-k", "1").exit_code == 0
    res = run("verify", bundle, "--full")
    assert res.exit_code == 0, res.stderr
    on_disk = {str(p.relative_to(bundle)) for p in bundle.rglob("*") if p.is_file()}
    recorded = set(json.loads((bundle / "manifest.json").read_text())["files"])
    assert on_disk - {"manifest.json", ".verify-cache.json"} == recorded, "every file stays recorded"


@pytest.mark.slow
def test_two_generates_into_one_bundle(tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "graph.cli", "generate", str(SAMPLE), "-o", str(out)]
    procs = [subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
    codes = sorted(c for c, _ in results)
    assert codes == [0, 2], results
    loser = next(e for c, e in results if c == 2)
    assert "being written by process" in loser.replace("\n", " ") or "already exists" in loser
    assert run("verify", out, "--full").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_generate_while_another_writer_holds_the_bundle(tmp_path):
    out = tmp_path / "out"
    hold = ("import sys, time; from pathlib import Path; from tools.bundle import output_lock\n"
            "with output_lock(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(30)")
    p = subprocess.Popen([sys.executable, "-c", hold, str(out)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "held"
        for args in (["generate", SAMPLE, "-o", out], ["generate", SAMPLE, "-o", out, "--force"]):
            res = run(*args)
            assert res.exit_code == 2
            assert f"being written by process {p.pid}" in res.stderr.replace("\n", " ")
        assert not out.exists()
    finally:
        p.kill()
        p.wait()


def test_generate_removes_and_reports_temp_dirs_of_killed_runs(tmp_path):
    stale = tmp_path / ".out.tmp-k1ll3d"
    (stale / "data").mkdir(parents=True)
    (stale / "data" / "readings.parquet").write_bytes(b"x" * 4096)
    other = tmp_path / ".other.tmp-k1ll3d"  # another output's temp dir: not ours to remove
    other.mkdir()
    res = run("generate", SAMPLE, "-o", tmp_path / "out")
    assert res.exit_code == 0, res.stderr
    assert f"removed {stale} (4.0 KB), left by an interrupted run" in " ".join(res.stderr.split())
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.tmp-k1ll3d", "out"]


def test_truncated_parquet_recorded_on_purpose_is_still_a_clear_error(bundle):
    name = _truncate_parquet(bundle)
    assert run("verify", bundle, "--allow-modified").exit_code == 0
    res = run("queries", bundle, "--n", "6")
    assert res.exit_code == 2, res.stderr
    err = " ".join(res.stderr.split())
    assert f"{bundle / name}: not a readable Parquet file" in err and "Traceback" not in res.stderr


@pytest.mark.slow
def test_a_killed_generate_leaves_a_temp_dir_the_next_one_removes(tmp_path):
    import signal
    import time

    spec = tmp_path / "big.yaml"
    spec.write_text(SAMPLE.read_text().replace("count: 5", "count: 400").replace("cadence: 15m", "cadence: 1m"))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "graph.cli", "generate", str(spec), "-o", str(out)]
    p = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".out.tmp-*")) and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.02)
    p.send_signal(signal.SIGKILL)
    p.wait()
    stale = list(tmp_path.glob(".out.tmp-*"))
    assert len(stale) == 1 and not out.exists(), "the run was killed while writing"
    res = run("generate", spec, "-o", out)
    assert res.exit_code == 0, res.stderr
    assert f"removed {stale[0]}" in " ".join(res.stderr.split())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.yaml", "out"]
