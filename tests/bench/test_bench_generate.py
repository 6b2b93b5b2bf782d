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


def test_bench_incidents_mode_prints_the_overhead_of_injection_and_checks():
    res = subprocess.run([sys.executable, str(BENCH), "--short", "--incidents", "--repeat", "2"],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.strip().splitlines()
    runs = [x for x in lines if x.startswith("incidents run ")]
    assert len(runs) == 2, lines
    m = re.fullmatch(r"incidents: without ([\d.]+)s, with injection \+ checks ([\d.]+)s \(checks ([\d.]+)s\): "
                     r"([+-]\d+)% \(medians of 2 paired runs\)", next(x for x in lines if x.startswith("incidents: ")))
    assert m, lines
    assert float(m.group(3)) > 0  # the checks ran
    assert lines[-1].startswith("rows=")
