"""Validated structured calls: ``structured_call()`` asks a chat model for a pydantic output model as
JSON-schema structured output, validates it (pydantic, then the caller's own check), re-asks with the
validation error, and returns None when it still fails so the caller takes the deterministic path
and records a note. An unreachable server (connection refused, DNS, timeout) or a refused key takes
the model offline for the process (``agents.models.go_offline``). Answers are cached on disk
(``agents.llm_cache``) and counted (``agents.models.usage``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from agents.llm_cache import cache_get, cache_key, cache_put
from agents.models import (
    count_call,
    go_offline,
    is_connection_error,
    model_id,
    offline_reason,
    status_error,
    unavailable_message,
)

T = TypeVar("T", bound=BaseModel)


def _schema(output: type[BaseModel]) -> dict:
    s = output.model_json_schema()
    s.setdefault("title", output.__name__)
    return s


def _strict_json(result: dict, output: type[BaseModel]) -> Any:
    """The reply as JSON, parsed strictly (LangChain's parser accepts truncated JSON such as
    ``{"a": ["x`` by closing it; a cut-off reply must count as invalid)."""
    content = getattr(result.get("raw"), "content", None)
    if isinstance(content, str) and content.strip():
        text = content.strip()
        if text.startswith("```"):
            text = text.strip("`").removeprefix("json").strip()
        try:
            return json.loads(text)
        except ValueError as exc:
            raise ValueError(f"not valid JSON for {output.__name__}: {exc}") from None
    if result.get("parsing_error") is not None or result.get("parsed") is None:
        raise ValueError(f"not valid JSON for {output.__name__}: {result.get('parsing_error')}")
    return result["parsed"]


def structured_call(model: Any, messages: Sequence[Any], output: type[T], *, retries: int = 2,
                    purpose: str = "", notes: list[str] | None = None,
                    check: Callable[[T], list[str]] | None = None) -> T | None:
    """Ask ``model`` for an ``output`` instance; validate, re-ask with the error, or return None.

    ``check`` is the deterministic tools' validation (problems → the LLM is asked again with them).
    ``notes`` collects one line per failure for the report. An unreachable server returns None and
    takes the model offline for the rest of the process (``go_offline``)."""
    if model is None:
        return None
    down = offline_reason(model)
    if down is not None:
        if notes is not None:
            notes.append(f"{purpose or 'LLM call'}: skipped, the LLM was unreachable earlier; used the deterministic path")
        return None
    key = cache_key(model, messages, output)
    hit = cache_get(key)
    if hit is not None:
        try:
            value = output.model_validate(hit)
            count_call(cache_hits=1)
            return value
        except ValidationError:
            pass
    convo: list[Any] = list(messages)
    runnable = model.with_structured_output(_schema(output), method="json_schema", include_raw=True)
    error = ""
    for attempt in range(retries + 1):
        count_call(purpose or "other", calls=1, retries=1 if attempt else 0)
        raw = None
        try:
            result = runnable.invoke(convo)
            raw = result.get("raw")
            meta = getattr(raw, "usage_metadata", None) or {}
            count_call(input_tokens=int(meta.get("input_tokens", 0)), output_tokens=int(meta.get("output_tokens", 0)))
            value = output.model_validate(_strict_json(result, output))
            problems = check(value) if check else []
            if problems:
                raise ValueError("; ".join(problems))
        except Exception as exc:
            if is_connection_error(exc):
                count_call(failures=1)
                message = unavailable_message(model, exc)
                go_offline(model, message)
                if notes is not None:
                    notes.append(f"{purpose or 'LLM call'}: {message}; used the deterministic path")
                return None
            http = status_error(exc)
            if http is not None:
                count_call(failures=1)
                if getattr(http, "status_code", None) in (401, 403) or "insufficient_quota" in str(http):
                    go_offline(model, f"the LLM {model_id(model)} refused the evaluator's credentials or quota "
                                      f"({type(http).__name__}: {str(http)[:160]}); check OPENAI_API_KEY")
                if notes is not None:
                    notes.append(f"{purpose or 'LLM call'}: the server answered with an error ({type(http).__name__}: "
                                 f"{str(http)[:160]}); used the deterministic path")
                return None
            error = str(exc)[:500]
            content = getattr(raw, "content", "") if raw is not None else ""
            if content:
                convo.append(AIMessage(content=str(content)))
            convo.append(HumanMessage(content=f"Your reply was not valid: {error}\nReply again with only a JSON "
                                              f"object that matches the {output.__name__} schema."))
            continue
        cache_put(key, value.model_dump(mode="json"))
        return value
    count_call(failures=1)
    if notes is not None:
        notes.append(f"{purpose or 'LLM call'}: invalid output after {retries + 1} attempt(s) ({error[:160]}); "
                     "used the deterministic path")
    return None
