"""A fake LangChain chat model for unit tests: scripted replies, ``bind_tools`` and
``with_structured_output`` (json_schema, with or without ``include_raw``), no network."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda


class FakeChatModel(BaseChatModel):
    """Answers with ``replies`` in order: str (content), dict/list (JSON content), AIMessage, or an
    Exception (raised). ``calls`` records the messages of every call; ``tools`` the bound tools."""

    replies: list[Any] = []
    calls: list[list[Any]] = []
    tools: list[Any] = []
    model_name: str = "fake"

    @property
    def _llm_type(self) -> str:
        return "fake-chat"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        self.calls.append(list(messages))
        if not self.replies:
            raise RuntimeError("FakeChatModel: no scripted reply left")
        r = self.replies.pop(0)
        if isinstance(r, Exception):
            raise r
        msg = r if isinstance(r, AIMessage) else AIMessage(content=r if isinstance(r, str) else json.dumps(r))
        msg.usage_metadata = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
        return ChatResult(generations=[ChatGeneration(message=msg)])

    def bind_tools(self, tools, **kwargs):
        self.tools = list(tools)
        return self

    def with_structured_output(self, schema, *, method: str | None = None, include_raw: bool = False, **kwargs):
        def run(messages):
            raw = self.invoke(messages)
            try:
                parsed, err = json.loads(raw.content), None
                if isinstance(schema, type):
                    parsed = schema.model_validate(parsed)
            except Exception as exc:  # like LangChain: the error is returned, not raised, with include_raw
                if not include_raw:
                    raise
                parsed, err = None, exc
            return {"raw": raw, "parsed": parsed, "parsing_error": err} if include_raw else parsed

        return RunnableLambda(run)
