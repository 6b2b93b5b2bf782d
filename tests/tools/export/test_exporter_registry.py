"""Suite exporters are discovered from tools/export/suites/: adding an exporter is adding one module
that defines ``EXPORTER`` (the recipe in docs/EXTENDING.md, done here with a toy format)."""

from __future__ import annotations

import json
import textwrap

import pytest

import tools.export.suites as suites
from tools.export.suites import suite_exporters

TOY = textwrap.dedent('''
    """A toy exporter: one line per question, id and expected answer."""

    from __future__ import annotations

    from pathlib import Path

    from tools.export.suites import SuiteExporter
    from tools.export.suites._common import jsonl


    def export_toy(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
        (out / "toy.jsonl").write_text(jsonl({"id": r["id"], "expected": r["answer_text"]} for r in records))
        return [out / "toy.jsonl"]


    EXPORTER = SuiteExporter("toy", 99, "toy lines", export_toy)
''')


def test_the_built_in_formats_in_their_order():
    assert list(suite_exporters()) == ["inspect", "langsmith", "opik", "promptfoo", "openai-evals", "genie"]
    assert all(e.help for e in suite_exporters().values())


@pytest.fixture
def toy_folder(tmp_path, monkeypatch):
    (tmp_path / "toy_lines.py").write_text(TOY)
    monkeypatch.setattr(suites, "__path__", [*suites.__path__, str(tmp_path)])
    suite_exporters.cache_clear()
    yield
    suite_exporters.cache_clear()


def test_a_new_module_is_a_new_format(toy_folder, tmp_path):
    found = suite_exporters()
    assert list(found)[-1] == "toy"  # order 99: after the built-ins
    out = tmp_path / "out"
    out.mkdir()
    paths = found["toy"].write([{"id": "q0001", "answer_text": "42"}], out, "")
    assert [json.loads(x) for x in paths[0].read_text().splitlines()] == [{"id": "q0001", "expected": "42"}]
