"""promptfoo: tests and a python assertion using chronoeval's grader."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tools.export.suites import SuiteExporter
from tools.export.suites._common import meta

PROMPTFOO_ASSERT = '''"""promptfoo python assertion: grade an output with chronoeval's grader."""

import json

from tools.grade import grade_response


def get_assert(output, context):
    g = grade_response(json.loads(context["vars"]["record"]), output)
    return {"pass": g.label == "correct", "score": 1.0 if g.label == "correct" else 0.0,
            "reason": f"{g.label}: {g.detail}"}
'''


def export_promptfoo(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
    """promptfoo tests (vars: question, evidence, preamble and ``prompt`` = all three as an agent reads
    them; a python assertion using chronoeval's grader)."""
    from tools.harness.prompting import asked_text

    tests = [{"description": f"{r['id']} {r['template']}", "vars": {
              "question": r["question"], "evidence": r.get("evidence", ""), "preamble": preamble,
              "prompt": asked_text(r, "both", preamble), "record": json.dumps(meta(r))},
              "assert": [{"type": "python", "value": "file://chronoeval_assert.py"}],
              "metadata": {"family": r["family"], "template": r["template"], "expected": r["answer_text"]}}
             for r in records]
    (out / "promptfoo_tests.yaml").write_text(yaml.safe_dump(tests, sort_keys=False, allow_unicode=True))
    (out / "chronoeval_assert.py").write_text(PROMPTFOO_ASSERT)
    return [out / "promptfoo_tests.yaml", out / "chronoeval_assert.py"]


EXPORTER = SuiteExporter("promptfoo", 40, "promptfoo tests + assertion", export_promptfoo)
