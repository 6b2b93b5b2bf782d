"""The trial runner: every question × N trials, answers graded as they arrive and appended to
``RUN/responses.jsonl`` (one writer thread: write, flush, fsync — a group commit when several
answers are waiting). A re-run of the same command resumes: answers already on disk are kept,
a torn last line from a crash is cut, and only the missing (question, trial) pairs are asked.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tools.grade import Judge, grade_response
from tools.harness.adapters import Agent, invoke
from tools.harness.context import AgentContext, HarnessError
from tools.harness.prompting import DEFAULT_CONTEXT, asked_text, check_modes, context_of
from tools.harness.sandbox import DEFAULT_MAX_REPLY

RESPONSES = "responses.jsonl"


@dataclass
class RunResult:
    run_dir: Path
    asked: int
    kept: int
    total: int


def suite_digest(records: list[dict]) -> str:
    """sha256 of the suite's questions and answers (a run may only resume on the same suite)."""
    h = hashlib.sha256()
    for r in records:
        h.update(json.dumps([r["id"], r["question"], r["answer"]], sort_keys=True, default=str).encode())
    return h.hexdigest()


def load_responses(run_dir: Path, repair: bool = False) -> list[dict]:
    """The complete lines of responses.jsonl; with ``repair`` a torn last line is cut off the file."""
    path = Path(run_dir) / RESPONSES
    if not path.is_file():
        return []
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if repair and end < len(data):
        with open(path, "r+b") as f:
            f.truncate(end)
            f.flush()
            os.fsync(f.fileno())
    out = []
    for line in data[:end].decode().splitlines():
        if line.strip():
            out.append(json.loads(line))
    return out


def prepare_run(run_dir: Path, meta: dict, records: list[dict], force: bool = False) -> list[dict]:
    """Create RUN (run.json, suite.jsonl) or check that an existing RUN is the same run; returns the
    responses already recorded."""
    run_dir = Path(run_dir)
    info = run_dir / "run.json"
    meta = {**meta, "suite_sha256": suite_digest(records)}
    # RUN/tables holds the CSV copies an agent reads with --backend csv; anything else is not ours
    if run_dir.exists() and not info.is_file() and any(p.name != "tables" for p in run_dir.iterdir()):
        raise HarnessError(f"{run_dir} exists and is not a chronoeval run directory; choose another -o")
    if info.is_file() and force:
        for name in (RESPONSES, "run.json", "suite.jsonl", "summary.json"):
            (run_dir / name).unlink(missing_ok=True)
    if info.is_file():
        old = json.loads(info.read_text())
        for key in ("suite_sha256", "agent", "backend"):
            if old.get(key) != meta.get(key):
                raise HarnessError(f"{run_dir} holds a run with another {key} ({old.get(key)!r}, now "
                                   f"{meta.get(key)!r}); choose another -o or pass --force to start over")
        if meta["trials"] > old["trials"]:
            atomic_write_text(info, json.dumps({**old, "trials": meta["trials"]}, indent=2) + "\n")
        return load_responses(run_dir, repair=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(run_dir / "suite.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    atomic_write_text(info, json.dumps({**meta, "started": datetime.now(UTC).isoformat()}, indent=2) + "\n")
    return []


class _Writer(threading.Thread):
    """Appends JSON lines to a file; every batch taken off the queue is flushed and fsynced."""

    def __init__(self, path: Path):
        super().__init__(daemon=True, name="chronoeval-writer")
        self.q: queue.Queue = queue.Queue()
        self.f = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by run()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            stop = False
            while not stop:
                batch = [self.q.get()]
                while True:
                    try:
                        batch.append(self.q.get_nowait())
                    except queue.Empty:
                        break
                lines = [b for b in batch if b is not None]
                stop = len(lines) < len(batch)
                if lines:
                    self.f.write("".join(lines))
                    self.f.flush()
                    os.fsync(self.f.fileno())
        except BaseException as exc:
            self.error = exc
        finally:
            self.f.close()

    def put(self, row: dict) -> None:
        self.q.put(json.dumps(row, default=str) + "\n")

    def close(self) -> None:
        self.q.put(None)
        self.join()
        if self.error:
            raise self.error


def _naive_match(record: dict, response: Any, label: str) -> bool | None:
    if record.get("naive_answer") is None or label != "incorrect":
        return None
    g = grade_response({**record, "answer": record["naive_answer"]}, response)
    return g.label == "correct"


def answer_row(record: dict, trial: int, reply, latency: float, judge: Judge | None,
               context: str = DEFAULT_CONTEXT) -> dict:
    """The responses.jsonl row of one answer: what was asked (and with which context mode), said, how
    long it took, its grade."""
    g = grade_response(record, reply.output, error=reply.error, judge=judge)
    return {"id": record["id"], "trial": trial, "context": context, "family": record["family"],
            "template": record["template"],
            "persona": record.get("persona"), "variant_of": record.get("variant_of"),
            "response": reply.output, "error": reply.error, "label": g.label, "detail": g.detail, "reason": g.reason,
            "decided": g.decided, "graded_by": g.graded_by, "parsed": g.parsed, "f1": g.f1,
            "naive_match": _naive_match(record, reply.output, g.label),
            "latency_s": round(latency, 6), "cost": reply.cost, "tokens": reply.tokens,
            "at": datetime.now(UTC).isoformat()}


def run_suite(records: list[dict], agent: Agent, context: AgentContext, run_dir: Path, *, trials: int = 3,
              concurrency: int = 8, timeout: float = 60.0, self_timed: bool = False, judge: Judge | None = None,
              meta: dict | None = None, force: bool = False, max_reply: int = DEFAULT_MAX_REPLY,
              on_answer: Callable[[int, int], None] | None = None, contexts: tuple[str, ...] = (DEFAULT_CONTEXT,),
              preamble: str = "") -> RunResult:
    """Ask every (question, trial, context mode) not yet in RUN/responses.jsonl; ``on_answer(done,
    total)`` ticks. Each mode sends what ``prompting.asked_text`` gives (``preamble``: the suite's
    conventions). A reply larger than ``max_reply`` bytes is recorded as a runtime error."""
    if trials < 1 or concurrency < 1 or timeout <= 0:
        raise HarnessError("--trials and --concurrency must be at least 1 and --timeout positive")
    try:
        contexts = check_modes(contexts)
    except ValueError as exc:
        raise HarnessError(str(exc)) from None
    run_dir = Path(run_dir)
    done_rows = prepare_run(run_dir, {**(meta or {}), "trials": trials}, records, force)
    done = {(r["id"], r["trial"], context_of(r)) for r in done_rows}
    tasks = [(r, t, m) for m in contexts for t in range(trials) for r in records if (r["id"], t, m) not in done]
    total = len(records) * trials * len(contexts)
    kept = total - len(tasks)
    writer = _Writer(run_dir / RESPONSES)
    writer.start()
    counter = {"n": kept}
    lock = threading.Lock()
    if on_answer:
        on_answer(kept, total)

    def one(task: tuple[dict, int, str]) -> None:
        record, trial, mode = task
        t0 = time.perf_counter()
        reply = invoke(agent, self_timed, asked_text(record, mode, preamble), context, timeout, max_reply)
        writer.put(answer_row(record, trial, reply, time.perf_counter() - t0, judge, mode))
        if on_answer:
            with lock:
                counter["n"] += 1
                on_answer(counter["n"], total)

    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="chronoeval-run")
    try:
        for fut in [pool.submit(one, t) for t in tasks]:
            fut.result()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        writer.close()
        raise
    pool.shutdown(wait=True)
    writer.close()
    return RunResult(run_dir, len(tasks), kept, total)


def regrade(run_dir: Path, judge: Judge | None = None) -> int:
    """Grade every recorded answer again (a newer grader, or a judge configured since the run) and
    rewrite responses.jsonl atomically; returns how many labels changed."""
    run_dir = Path(run_dir)
    records = {r["id"]: r for r in (json.loads(x) for x in (run_dir / "suite.jsonl").read_text().splitlines() if x)}
    rows, changed = [], 0
    for row in load_responses(run_dir, repair=True):
        g = grade_response(records[row["id"]], row["response"], error=row["error"], judge=judge)
        new = {**row, "label": g.label, "detail": g.detail, "reason": g.reason, "decided": g.decided,
               "graded_by": g.graded_by,
               "parsed": g.parsed, "f1": g.f1,
               "naive_match": _naive_match(records[row["id"]], row["response"], g.label)}
        changed += new["label"] != row["label"]
        rows.append(new)
    atomic_write_text(run_dir / RESPONSES, "".join(json.dumps(r, default=str) + "\n" for r in rows))
    return changed


def atomic_write_text(path: Path, text: str) -> None:
    """tools.bundle.atomic.atomic_write_text, imported on first use."""
    from tools.bundle.atomic import atomic_write_text as write

    write(path, text)
