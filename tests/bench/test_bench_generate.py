"""The generation benchmark runs in its short mode and ends with the documented line."""

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_generate.py"


def test_bench_short_mode_prints_the_contract_line():
    res = subprocess.run([sys.executable, str(BENCH), "--short"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    last = res.stdout.strip().splitlines()[-1]
    m = re.fullmatch(r"rows=(\d+) seconds=([\d.]+) rows_per_s=(\d+) peak_rss_mb=(\d+) ratio_vs_raw=([\d.]+)", last)
    assert m, last
    assert abs(int(m.group(1)) - 300_000) < 3_000  # the pack was scaled to the requested size
