"""Inspect AI: a dataset and a task file for ``inspect eval``."""

from __future__ import annotations

from pathlib import Path

from tools.export.suites import SuiteExporter
from tools.export.suites._common import jsonl, meta, system, user

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


def export_inspect(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
    """dataset.jsonl (input: evidence + question; target/id/metadata) and chronoeval_task.py for
    ``inspect eval``, whose system message carries the suite's preamble."""
    rows = [{"id": r["id"], "input": user(r), "target": r["answer_text"], "metadata": meta(r)} for r in records]
    (out / "dataset.jsonl").write_text(jsonl(rows))
    (out / "chronoeval_task.py").write_text(INSPECT_TASK.format(system=system(preamble)))
    return [out / "dataset.jsonl", out / "chronoeval_task.py"]


EXPORTER = SuiteExporter("inspect", 10, "Inspect AI dataset + task", export_inspect)
