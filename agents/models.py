"""LLM resolution, the on-disk response cache, call/token accounting and validated structured calls.

- ``get_chat_model()`` reads ``CHRONOEVAL_MODEL`` (default ``none``: no LLM, every agent takes its
  deterministic path). ``provider:model`` goes through LangChain's ``init_chat_model``; a bare model
  name with ``OPENAI_BASE_URL`` set means an OpenAI-compatible server (``OPENAI_API_KEY``, or a
  placeholder for local servers that need none). Timeouts and bounded retries come from
  ``CHRONOEVAL_LLM_TIMEOUT`` (seconds, default 60) and ``CHRONOEVAL_LLM_RETRIES`` (default 2).
- ``structured_call()`` asks for a pydantic output model as JSON-schema structured output,
  validates it (pydantic, then the caller's own check), re-asks with the validation error, and
  returns None when it still fails so the caller takes the deterministic path and records a note.
  An unreachable server (connection refused, DNS, timeout) makes the whole process go offline:
  one warning on stderr, None for this and every later call to that model (no more waiting on
  it), so build, chat and paraphrase finish on their deterministic paths instead of failing.
- Responses are cached on disk (``CHRONOEVAL_CACHE_DIR``, default ``$CHRONOEVAL_HOME/cache/llm``), keyed
  by model + messages + output schema: a re-run with the cache makes no HTTP call.
- ``usage()`` counts calls, cache hits, failures and tokens for reports.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)
OFFLINE = {"", "none", "off", "offline", "false", "0"}


class LLMUnavailable(RuntimeError):
    """The configured LLM cannot be reached (connection refused, DNS, timeout). ``structured_call``
    no longer raises it (it goes offline); kept for callers that still catch it."""


class LLMConfigError(ValueError):
    """CHRONOEVAL_MODEL names a model that cannot be set up (a user error)."""


@dataclass
class Usage:
    """Call and token accounting of the LLM layer (process-wide; ``reset_usage`` starts over)."""

    calls: int = 0
    cache_hits: int = 0
    failures: int = 0
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    by_purpose: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        """One line for reports."""
        return (f"{self.calls} LLM call(s), {self.cache_hits} cache hit(s), {self.retries} retry(ies), "
                f"{self.failures} failure(s), {self.input_tokens} input / {self.output_tokens} output tokens")


_USAGE = Usage()
_LOCK = threading.Lock()
_UNREACHABLE: dict[str, str] = {}  # model_id -> why: models this process stopped calling


def offline_reason(model: Any) -> str | None:
    """Why ``model`` is no longer called in this process (it was unreachable), or None."""
    with _LOCK:
        return _UNREACHABLE.get(model_id(model))


def go_offline(model: Any, message: str) -> None:
    """Stop calling ``model`` for the rest of the process; the first time, warn on stderr."""
    with _LOCK:
        first = model_id(model) not in _UNREACHABLE
        _UNREACHABLE.setdefault(model_id(model), message)
    if first:
        print(f"warning: {message}. Continuing offline: the deterministic paths take over.", file=sys.stderr)


def reset_offline() -> None:
    """Forget which models were unreachable (tests; a long-lived process after a server restart)."""
    with _LOCK:
        _UNREACHABLE.clear()


def usage() -> Usage:
    """A copy of the accounting so far."""
    with _LOCK:
        return Usage(**{**asdict(_USAGE), "by_purpose": dict(_USAGE.by_purpose)})


def reset_usage() -> None:
    global _USAGE
    with _LOCK:
        _USAGE = Usage()


def _count(**kw: int) -> None:
    with _LOCK:
        for k, v in kw.items():
            setattr(_USAGE, k, getattr(_USAGE, k) + v)


def model_name(model: str | None = None) -> str:
    """The configured model string (``CHRONOEVAL_MODEL``, default ``none``)."""
    return (model if model is not None else os.environ.get("CHRONOEVAL_MODEL", "none")).strip()


def get_chat_model(model: str | None = None):
    """A LangChain chat model for ``model`` (or ``CHRONOEVAL_MODEL``), or None when offline."""
    name = model_name(model)
    if name.lower() in OFFLINE:
        return None
    from langchain.chat_models import init_chat_model

    timeout = float(os.environ.get("CHRONOEVAL_LLM_TIMEOUT", "60"))
    retries = int(os.environ.get("CHRONOEVAL_LLM_RETRIES", "2"))
    base_url = os.environ.get("OPENAI_BASE_URL")
    provider, _, bare = name.partition(":") if ":" in name else ("", "", name)
    kwargs: dict[str, Any] = {"timeout": timeout, "max_retries": retries, "temperature": 0}
    if provider in ("", "openai") and base_url:
        provider = "openai"
        kwargs["base_url"] = base_url
        kwargs["api_key"] = os.environ.get("OPENAI_API_KEY") or "sk-local-no-key"
    try:
        return init_chat_model(bare, model_provider=provider or None, **kwargs)
    except Exception as exc:  # unknown provider, missing integration package, missing key
        raise LLMConfigError(
            f"CHRONOEVAL_MODEL={name!r} cannot be used: {exc}. Use 'provider:model' (e.g. openai:gpt-4.1-mini), "
            "set OPENAI_BASE_URL for an OpenAI-compatible server, or CHRONOEVAL_MODEL=none to stay offline"
        ) from None


def model_id(model: Any) -> str:
    """A stable description of a chat model for cache keys and reports."""
    if model is None:
        return "none"
    name = getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__
    base = getattr(model, "openai_api_base", None) or ""
    return f"{type(model).__name__}:{name}" + (f"@{base}" if base else "")


def cache_dir() -> Path:
    """Where LLM responses are cached: ``$CHRONOEVAL_CACHE_DIR``, else ``$CHRONOEVAL_HOME/cache/llm``."""
    from graph.paths import llm_cache_dir

    return llm_cache_dir()


def _messages(messages: Sequence[Any]) -> list[dict[str, str]]:
    out = []
    for m in messages:
        if isinstance(m, tuple):
            out.append({"role": m[0], "content": str(m[1])})
        else:
            out.append({"role": getattr(m, "type", "user"), "content": str(getattr(m, "content", m))})
    return out


def cache_key(model: Any, messages: Sequence[Any], schema: type[BaseModel]) -> str:
    """sha256 of model + messages + output schema."""
    blob = json.dumps({"model": model_id(model), "messages": _messages(messages),
                       "schema": schema.model_json_schema()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _cache_get(key: str) -> dict | None:
    path = cache_dir() / key[:2] / f"{key}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _cache_put(key: str, value: dict) -> None:
    from tools.bundle.atomic import atomic_write_text

    path = cache_dir() / key[:2] / f"{key}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(value, sort_keys=True))
    except OSError:  # a read-only cache never fails a run
        pass


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in out:
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def is_connection_error(exc: BaseException) -> bool:
    """True for 'could not reach the server' errors (connection refused, DNS, timeouts), looking
    through the exception chain (LangChain re-raises the openai/httpx errors)."""
    import openai

    return any(isinstance(e, openai.APIConnectionError) or type(e).__name__ in
               {"ConnectError", "ConnectTimeout", "ReadTimeout", "TimeoutException", "OpenAITimeoutError"}
               for e in _chain(exc))


def status_error(exc: BaseException) -> BaseException | None:
    """The HTTP error status behind ``exc`` (the server answered 4xx/5xx), if any."""
    import openai

    return next((e for e in _chain(exc) if isinstance(e, openai.APIStatusError)), None)


def unavailable_message(model: Any, exc: BaseException) -> str:
    base = getattr(model, "openai_api_base", None) or os.environ.get("OPENAI_BASE_URL") or "the provider"
    return (f"cannot reach the LLM {model_id(model)} at {base} ({type(exc).__name__}: {exc}); check "
            "OPENAI_BASE_URL / the server, or set CHRONOEVAL_MODEL=none to run offline")


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
    hit = _cache_get(key)
    if hit is not None:
        try:
            value = output.model_validate(hit)
            _count(cache_hits=1)
            return value
        except ValidationError:
            pass
    from langchain_core.messages import AIMessage, HumanMessage

    convo: list[Any] = list(messages)
    runnable = model.with_structured_output(_schema(output), method="json_schema", include_raw=True)
    error = ""
    for attempt in range(retries + 1):
        _count(calls=1, retries=1 if attempt else 0)
        with _LOCK:
            _USAGE.by_purpose[purpose or "other"] = _USAGE.by_purpose.get(purpose or "other", 0) + 1
        raw = None
        try:
            result = runnable.invoke(convo)
            raw = result.get("raw")
            meta = getattr(raw, "usage_metadata", None) or {}
            _count(input_tokens=int(meta.get("input_tokens", 0)), output_tokens=int(meta.get("output_tokens", 0)))
            value = output.model_validate(_strict_json(result, output))
            problems = check(value) if check else []
            if problems:
                raise ValueError("; ".join(problems))
        except Exception as exc:
            if is_connection_error(exc):
                _count(failures=1)
                message = unavailable_message(model, exc)
                go_offline(model, message)
                if notes is not None:
                    notes.append(f"{purpose or 'LLM call'}: {message}; used the deterministic path")
                return None
            http = status_error(exc)
            if http is not None:
                _count(failures=1)
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
        _cache_put(key, value.model_dump(mode="json"))
        return value
    _count(failures=1)
    if notes is not None:
        notes.append(f"{purpose or 'LLM call'}: invalid output after {retries + 1} attempt(s) ({error[:160]}); "
                     "used the deterministic path")
    return None
