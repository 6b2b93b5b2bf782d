"""output_lock: one writer per output directory; a second one fails at once naming the holder;
the lock dies with its process; stale temp dirs of killed writers are removed and reported."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

from tools.bundle import LockHeldError, output_lock
from tools.bundle.lock import lock_path

HOLD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from tools.bundle import output_lock
    with output_lock(Path(sys.argv[1])):
        print("held", flush=True)
        time.sleep(30)
""")


def _holder(target):
    p = subprocess.Popen([sys.executable, "-c", HOLD, str(target)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


def test_second_writer_fails_at_once_naming_the_holder(tmp_path):
    target = tmp_path / "out"
    p = _holder(target)
    try:
        began = time.monotonic()
        with pytest.raises(LockHeldError, match=rf"{target}.*process {p.pid}"):
            with output_lock(target):
                pass
        assert time.monotonic() - began < 1
    finally:
        p.kill()
        p.wait()
    with output_lock(target):  # a killed holder leaves no stale lock
        pass
    assert not lock_path(target).exists()


def test_nested_lock_in_one_process(tmp_path):
    with output_lock(tmp_path / "out"):
        with output_lock(tmp_path / "out"):
            pass
        assert lock_path(tmp_path / "out").exists()


def test_stale_temp_dirs_are_removed_and_reported(tmp_path):
    stale = tmp_path / ".out.tmp-abc123"
    (stale / "data").mkdir(parents=True)
    (stale / "data" / "x.parquet").write_bytes(b"x" * 1000)
    other = tmp_path / ".other.tmp-xyz"
    other.mkdir()
    with output_lock(tmp_path / "out") as lock:
        assert [(p.name, n) for p, n in lock.stale_removed] == [(".out.tmp-abc123", 1000)]
    assert not stale.exists() and other.exists()
