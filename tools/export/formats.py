"""Suite exports to eval platforms: Inspect AI, LangSmith, Opik, promptfoo, OpenAI evals and a
Genie-style benchmark CSV. Every file is plain data (JSONL, YAML, CSV) plus, for Inspect and
promptfoo, a small entry file that grades with chronoeval's own grader when it is installed."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import yaml

SYSTEM_PROMPT = ("You answer questions about time-series telemetry tables. Reply with the answer first "
                 "(numbers with their unit), then at most one sentence of justification.")


def _meta(r: dict) -> dict:
    return {"id": r["id"], "family": r["family"], "template": r["template"], "answer": r["answer"],
            "answer_type": r["answer_type"], "answer_text": r["answer_text"], "tolerance": r["tolerance"],
            "naive_answer": r.get("naive_answer"), "persona": r.get("persona"), "variant_of": r.get("variant_of"),
            "incident_id": r.get("incident_id"), "contrast": r.get("contrast"), "difficulty": r.get("difficulty"),
            "tables": r.get("tables"), "question": r["question"], "evidence": r.get("evidence", ""),
            "precise_question": r.get("precise_question", "")}


def _system(preamble: str) -> str:
    """The system prompt with the suite's conventions (suite.json preamble) when there are any."""
    return f"{SYSTEM_PROMPT}\n\n{preamble}" if preamble else SYSTEM_PROMPT


def _user(r: dict) -> str:
    """The user turn: the question's evidence (definitions of its terms), then the question."""
    from tools.harness.prompting import asked_text

    return asked_text(r, "evidence", "")


def _jsonl(rows) -> str:
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows)


INSPECT_TASK = '''"""Inspect AI task for a chronoeval suite: `inspect eval chronoeval_task.py --model <provider/model>`."""

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import json_dataset
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import generate, system_message

SYSTEM = {system!r}


@scorer(metrics=[accuracy()])
def chronoeval_grader():
    """chronoeval's deterministic grader (numbers with units, durations, sets, rankings, ...)."""
    from tools.grade import grade_response

    async def score(state, target: Target) -> Score:
        g = grade_response(state.metadata, state.output.completion)
        return Score(value=CORRECT if g.label == "correct" else INCORRECT, answer=state.output.completion,
                     explanation=f"{{g.label}}: {{g.detail}}")
    return score


@task
def chronoeval_suite():
    return Task(dataset=json_dataset(str(Path(__file__).with_name("dataset.jsonl"))),
                solver=[system_message(SYSTEM), generate()], scorer=chronoeval_grader())
'''

PROMPTFOO_ASSERT = '''"""promptfoo python assertion: grade an output with chronoeval's grader."""

import json

from tools.grade import grade_response


def get_assert(output, context):
    g = grade_response(json.loads(context["vars"]["record"]), output)
    return {"pass": g.label == "correct", "score": 1.0 if g.label == "correct" else 0.0,
            "reason": f"{g.label}: {g.detail}"}
'''


def export_inspect(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
    """dataset.jsonl (input: evidence + question; target/id/metadata) and chronoeval_task.py for
    ``inspect eval``, whose system message carries the suite's preamble."""
    rows = [{"id": r["id"], "input": _user(r), "target": r["answer_text"], "metadata": _meta(r)} for r in records]
    (out / "dataset.jsonl").write_text(_jsonl(rows))
    (out / "chronoeval_task.py").write_text(INSPECT_TASK.format(system=_system(preamble)))
    return [out / "dataset.jsonl", out / "chronoeval_task.py"]


def export_langsmith(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
    """LangSmith examples (inputs: question, evidence, preamble; outputs; metadata), one per line."""
    rows = [{"inputs": {"question": r["question"], "evidence": r.get("evidence", ""), "preamble": preamble}, "outputs": {"answer": r["answer"], "answer_text": r["answer_text"]},
             "metadata": _meta(r)} for r in records]
    (out / "langsmith_examples.jsonl").write_text(_jsonl(rows))
    return [out / "langsmith_examples.jsonl"]


def export_opik(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
    """Opik dataset items (input: evidence + question; preamble; expected_output plus metadata)."""
    rows = [{"input": _user(r), "preamble": preamble, "expected_output": r["answer_text"], "question_id": r["id"],
             "metadata": _meta(r)} for r in records]
    (out / "opik_items.jsonl").write_text(_jsonl(rows))
    return [out / "opik_items.jsonl"]


def export_promptfoo(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
    """promptfoo tests (vars: question, evidence, preamble and ``prompt`` = all three as an agent reads
    them; a python assertion using chronoeval's grader)."""
    from tools.harness.prompting import asked_text

    tests = [{"description": f"{r['id']} {r['template']}", "vars": {
              "question": r["question"], "evidence": r.get("evidence", ""), "preamble": preamble,
              "prompt": asked_text(r, "both", preamble), "record": json.dumps(_meta(r))},
              "assert": [{"type": "python", "value": "file://chronoeval_assert.py"}],
              "metadata": {"family": r["family"], "template": r["template"], "expected": r["answer_text"]}}
             for r in records]
    (out / "promptfoo_tests.yaml").write_text(yaml.safe_dump(tests, sort_keys=False, allow_unicode=True))
    (out / "chronoeval_assert.py").write_text(PROMPTFOO_ASSERT)
    return [out / "promptfoo_tests.yaml", out / "chronoeval_assert.py"]


def export_openai_evals(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
    """OpenAI evals samples: chat ``input`` (system: the preamble; user: evidence + question), ``ideal``."""
    rows = [{"input": [{"role": "system", "content": _system(preamble)}, {"role": "user", "content": _user(r)}],
             "ideal": r["answer_text"], "metadata": {"id": r["id"], "template": r["template"]}} for r in records]
    (out / "openai_evals.jsonl").write_text(_jsonl(rows))
    return [out / "openai_evals.jsonl"]


def export_genie(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
    """A Genie-style benchmark CSV: question and the gold SQL that answers it, in Databricks' Spark SQL
    (the record's ``gold_sql_dialects["spark"]``; transpiled here for suites made before that field)."""
    from tools.queries.dialects import transpile

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["id", "question", "sql", "answer_text"])
    for r in records:
        sql = (r.get("gold_sql_dialects") or {}).get("spark") or transpile(r["gold_sql"], "spark")
        w.writerow([r["id"], r["question"], sql, r["answer_text"]])
    (out / "genie_benchmark.csv").write_text(buf.getvalue())
    return [out / "genie_benchmark.csv"]


SUITE_FORMATS = {"inspect": export_inspect, "langsmith": export_langsmith, "opik": export_opik,
                 "promptfoo": export_promptfoo, "openai-evals": export_openai_evals, "genie": export_genie}
