"""The question families, listed once (the qa.jsonl ``family`` field, the query plan's ``mix`` keys).

Every other list of families is derived from these: the spec check of ``query_plan.mix``, the
``QARecord.family`` type, the template registry, the chat grammar's and the CLI's family words.
"""

from __future__ import annotations

CORE_FAMILIES = ("stateless", "stateful", "incident")
# Families asked only when the query plan's mix names them (docs/QUESTION-FAMILIES.md): default suites stay
# as they were. ``forecast`` also needs a held-back horizon (tools/queries/holdout.py).
EXTRA_FAMILIES = ("shape", "detection", "forecast", "claim", "false_premise", "unanswerable")
FAMILIES = CORE_FAMILIES + EXTRA_FAMILIES
