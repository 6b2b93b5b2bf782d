"""report.html and compare.html in a real browser (Debian's headless Chromium, offline): the page
shows no raw markdown (no ``**``, no backticks, no literal ``\\n``) and every figure loads; a
screenshot is saved. ``make test`` installs chromium where missing (make chromium)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graph.cli import app

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--virtual-time-budget=5000"]
# appended to a copy of the page: after load, record every image's naturalWidth and the visible text
PROBE = """<script>window.addEventListener('load', () => {
  const out = document.createElement('pre'); out.id = '__probe';
  out.textContent = JSON.stringify({images: [...document.images].map(i => [i.getAttribute('src'), i.naturalWidth]),
                                    text: document.body.innerText});
  document.body.appendChild(out);
});</script>"""
# an agent whose answers are markdown with a multi-line table, bold and code: rendered, not shown raw
MARKDOWN_AGENT = '''def answer(question, context):
    return "The answer is **42** (from `SELECT 1`).\\n\\n| zone | n |\\n|---|---|\\n| a | 216353 |\\n\\nsee\\n2"
'''


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess:
    assert Path(CHROMIUM).is_file(), "Chromium is missing: run make chromium (make test does)"
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=120)


def _probe(page: Path, tmp_path: Path) -> dict:
    """The page as the browser rendered it: image widths and the visible text."""
    probe = page.with_name(f"probe-{page.name}")
    probe.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    r = _chromium("--dump-dom", probe.as_uri(), profile=tmp_path / f"profile-{page.stem}")
    m = re.search(r'<pre id="__probe">(.*?)</pre>', r.stdout, re.S)
    assert m, f"no probe output from chromium: {r.stderr[-800:]}"
    import html

    return json.loads(html.unescape(m.group(1)))


def _screenshot(page: Path, png: Path, tmp_path: Path) -> None:
    _chromium("--window-size=1280,2000", f"--screenshot={png}", page.as_uri(), profile=tmp_path / "profile-shot")
    assert png.is_file() and png.stat().st_size > 20_000  # a rendered page, not a blank one


def _assert_clean(seen: dict) -> None:
    text = seen["text"]
    assert "**" not in text and "`" not in text and "\\n" not in text, text[:2000]
    assert not re.search(r"^\s*[-*] ", text, re.M) and "|---" not in text  # list/table syntax rendered


@pytest.mark.slow
def test_report_and_compare_pages_render_cleanly_in_chromium(small_bundle, tmp_path):
    bundle = small_bundle("iot", 12, 4)
    agent = tmp_path / "md_agent.py"
    agent.write_text(MARKDOWN_AGENT)
    runs = {"naive": ["--agent", "naive", "--trials", "2"],
            "markdown": ["--agent", f"python:{agent}:answer", "--trials", "1"]}
    for name, args in runs.items():
        r = CliRunner().invoke(app, ["eval", str(bundle), *args, "-o", str(tmp_path / name), "--no-memory"])
        assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["compare", str(tmp_path / "naive"), str(tmp_path / "markdown"),
                                 "-o", str(tmp_path / "compare.md")])
    assert r.exit_code == 0, r.output

    for name in runs:
        page = tmp_path / name / "report.html"
        seen = _probe(page, tmp_path)
        assert len(seen["images"]) >= 4 and all(w > 0 for _, w in seen["images"]), seen["images"]
        _assert_clean(seen)
        text = seen["text"]
        assert "Accuracy by family" in text and "Accuracy by template" in text and "Template × trial" in text
        assert "question" in text and "expected" in text and "grade" in text  # the failures, in full
    md = _probe(tmp_path / "markdown" / "report.html", tmp_path)["text"]
    assert "The answer is 42 (from SELECT 1)." in md and "216353" in md  # markdown rendered, not dropped

    compare = tmp_path / "compare.html"
    seen = _probe(compare, tmp_path)
    _assert_clean(seen)
    assert "naive (naive)" in seen["text"] and "Template × agent" in seen["text"]
    shots = tmp_path / "screenshots"
    shots.mkdir()
    _screenshot(tmp_path / "naive" / "report.html", shots / "report.png", tmp_path)
    _screenshot(compare, shots / "compare.png", tmp_path)
