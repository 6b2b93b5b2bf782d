"""README.md is what a newcomer follows: at most ~300 lines, links that resolve inside the
repository, and every command in its shell blocks runs as written, in order, in a fresh directory
with a fresh HOME and CHRONOEVAL_HOME (each `chronoeval` line in-process, as the installed entry
point would run it; `make demo` / `make test` are the targets that run this very suite, so they are
left out). Every option the README or docs/ shows after a `chronoeval` command exists in its --help."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graph.cli import app

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
SUBGROUPS = {"memory"}


def _blocks(text: str) -> list[str]:
    """The lines of the ```bash blocks, continuation lines joined."""
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        lines += block.replace("\\\n", " ").splitlines()
    return [x for x in lines if x.strip()]


def _command(line: str) -> tuple[list[str], str] | None:
    """(argv, stdin) of a README line; None for lines this test does not run (make, source)."""
    stdin = ""
    m = re.match(r"\s*printf\s+'((?:[^'])*)'\s*\|\s*(.*)$", line)
    if m:
        stdin, line = m.group(1).encode().decode("unicode_escape"), m.group(2)
    argv = shlex.split(line, comments=True)
    if not argv or argv[0] in ("make", "source"):
        return None
    assert argv[0] == "chronoeval", f"README runs something other than chronoeval: {line!r}"
    return argv[1:], stdin


def test_readme_is_short_and_links_stay_inside_the_repository():
    text = README.read_text()
    assert len(text.splitlines()) <= 300
    links = re.findall(r"\]\(([^)#]+)\)", text)
    assert links and all((ROOT / link).exists() for link in links if "://" not in link), links
    assert "../shared" not in text and "DESIGN.md" not in text
    for doc in ("ARCHITECTURE", "SPEC", "QUESTIONS", "HARNESS", "EXPORTS", "PERFORMANCE"):
        assert f"docs/{doc}.md" in text
    assert ".venv/bin/chronoeval" in text and "source .venv/bin/activate" in text
    for command in ("build", "chat", "eval", "report", "compare", "export", "infer", "paraphrase", "memory",
                    "generate", "queries", "validate", "verify"):
        assert re.search(rf"^chronoeval {command}\b", text, re.M), f"no line for chronoeval {command}"


def _help(words: tuple[str, ...]) -> str:
    r = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": "250"})
    assert r.exit_code == 0, (words, r.output)
    return r.output


def test_every_option_shown_in_readme_and_docs_exists():
    helps: dict[tuple[str, ...], str] = {}
    for doc in [README, *DOCS]:
        for line in doc.read_text().splitlines():
            for m in re.finditer(r"chronoeval ((?:memory )?[a-z]+)\b([^`|]*)", line):
                words = tuple(m.group(1).split())
                if words[0] not in {c.name for c in app.registered_commands} | SUBGROUPS:
                    continue
                text = helps.setdefault(words, _help(words))
                for flag in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", m.group(2)):
                    assert flag in text, f"{doc.name}: `chronoeval {' '.join(words)}` has no {flag}: {line.strip()}"


def test_the_installed_entry_point_runs_by_its_path():
    exe = ROOT / ".venv" / "bin" / "chronoeval"
    r = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "build" in r.stdout


@pytest.mark.slow
def test_every_readme_command_runs_as_written(tmp_path, monkeypatch):
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))  # a fresh HOME (CHRONOEVAL_HOME is fresh per test: conftest)
    commands = [c for c in map(_command, _blocks(README.read_text())) if c is not None]
    assert len(commands) >= 20
    for argv, stdin in commands:
        r = CliRunner().invoke(app, argv, input=stdin, env={"COLUMNS": "160"})
        assert r.exit_code == 0, f"chronoeval {shlex.join(argv)} → exit {r.exit_code}\n{r.output[-3000:]}"
    assert (work / "runs" / "naive" / "report.html").is_file() and (work / "runs" / "compare.html").is_file()
    assert (work / "inferred.yaml").is_file() and (work / "out" / "iot-promptfoo").is_dir()
    assert not [p for p in home.rglob("*") if p.is_file()]  # nothing written outside the home and outputs
