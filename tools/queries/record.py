"""The qa.jsonl record contract (DESIGN "Question records") as a pydantic model, and a validator."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from tools.bundle.files import HOLDOUT_DIR
from tools.common.families import FAMILIES
from tools.queries.spec import AnswerType, QuerySpec


class Tolerance(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rel: float
    abs: float


class QARecord(BaseModel):
    """One question of the suite; ``params`` must parse as a QuerySpec."""

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str
    canonical_question: str
    variant_of: str | None
    persona: str | None
    family: Literal[FAMILIES]  # type: ignore[valid-type]  # Literal["stateless", ...] built from the one list
    template: str
    params: dict[str, Any]
    answer: Any
    answer_type: AnswerType
    answer_text: str
    tolerance: Tolerance
    gold_sql: str
    gold_sql_dialects: dict[str, str] = {}  # gold_sql in spark, snowflake, bigquery, postgres, trino (sqlglot)
    tables: list[str]
    incident_id: str | None
    contrast: bool
    naive_answer: Any
    difficulty: Literal["easy", "medium", "hard"]
    precise_question: str = ""  # the full wording (bounds, rounding, definitions inline)
    evidence: str = ""  # definitions of the question's derived terms, shown to the agent with it

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not re.fullmatch(r"q\d{4,}(\.p\d+)?", v):
            raise ValueError(f"id {v!r} must look like q0001 or q0001.p3")
        return v

    @field_validator("params")
    @classmethod
    def _params(cls, v: dict) -> dict:
        QuerySpec.model_validate(v)
        return v


def load_suite(path: Path | str) -> list[QARecord]:
    """Read and validate qa.jsonl; a bad line raises ValueError naming the line."""
    out = []
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        try:
            out.append(QARecord.model_validate(json.loads(line)))
        except ValueError as exc:
            raise ValueError(f"{path}, line {i}: {exc}") from None
    assert all(r.family in FAMILIES for r in out)
    return out


def gold_sql_mismatches(db_path: Path | str, records: list[dict[str, Any]]) -> list[str]:
    """Re-run every record's ``gold_sql`` in a fresh read-only DuckDB connection and list the records
    whose result is not their ``answer`` (empty when the suite is consistent with the data)."""
    from tools.bundle.layout import connect_bundle
    from tools.queries.answers import agree, canonical

    con = connect_bundle(db_path)
    con.execute("SET TimeZone = 'UTC'")
    if (Path(db_path).parent / HOLDOUT_DIR).is_dir():  # forecast gold SQL reads holdout/<table>.parquet
        from tools.sqlsafe import quote_literal

        con.execute(f"SET file_search_path = {quote_literal(str(Path(db_path).parent.resolve()))}")
    bad = []
    try:
        for r in records:
            row = con.execute(r["gold_sql"]).fetchone()
            got = canonical(None if row is None else row[0], r["answer_type"])
            if not agree(got, r["answer"]):
                bad.append(f"{r['id']} ({r['template']}): gold_sql gives {got!r}, answer is {r['answer']!r}")
    finally:
        con.close()
    return bad
