"""LLM resolution, call/token accounting and the process's offline state.

- ``get_chat_model()`` reads ``CHRONOEVAL_MODEL`` (default ``none``: no LLM, every agent takes its
  deterministic path). ``provider:model`` goes through LangChain's ``init_chat_model``; a bare model
  name with ``OPENAI_BASE_URL`` set means an OpenAI-compatible server (``OPENAI_API_KEY``, or a
  placeholder for local servers that need none). Timeouts and bounded retries come from
  ``CHRONOEVAL_LLM_TIMEOUT`` (seconds, default 60) and ``CHRONOEVAL_LLM_RETRIES`` (default 2).
- An unreachable server (connection refused, DNS, timeout) makes the whole process go offline:
  one warning on stderr, None for this and every later call to that model (no more waiting on
  it), so build, chat and paraphrase finish on their deterministic paths instead of failing.
- ``usage()`` counts calls, cache hits, failures and tokens for reports.

Validated structured calls are ``agents.structured``; the response cache is ``agents.llm_cache``.
This module is loaded when the CLI starts, so LangChain and openai are imported only when a model
is made or an error examined.
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import asdict, dataclass, field
from typing import Any

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


def count_call(purpose: str | None = None, **counters: int) -> None:
    """Add ``counters`` (calls, cache_hits, failures, retries, input_tokens, output_tokens) to the
    accounting and, with ``purpose``, one call under it."""
    with _LOCK:
        for k, v in counters.items():
            setattr(_USAGE, k, getattr(_USAGE, k) + v)
        if purpose is not None:
            _USAGE.by_purpose[purpose] = _USAGE.by_purpose.get(purpose, 0) + 1


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
