"""A scripted OpenAI-compatible Chat Completions server on 127.0.0.1, for tests of LLM paths.

Real HTTP, real clients: point ``openai`` / ``langchain-openai`` at ``server.base_url`` and script
what the "model" answers, in order::

    server.script("plain text", {"equivalent": True, "reason": "same"}, ToolCall("get_schema", {}))
    server.fail_with(500)          # next request: HTTP 500 (the openai client may retry it)
    server.malformed_json()        # next request: content that is not JSON
    server.delay(2.0)              # the next reply waits 2 s (client timeouts)
    server.respond_with(fn)        # when the queue is empty: fn(request_body) -> reply
    server.requests                # every request body received (dicts), in order

A reply is a str (assistant text), a dict / list / pydantic model (JSON content: what a
``response_format`` json_schema request expects), a ``ToolCall`` or a list of them (tool calls),
or a ``Reply`` for full control. With nothing scripted and no responder the server answers 500
"script exhausted", so a test that makes an unplanned call fails loudly. The pytest fixture
``openai_server`` (tests/conftest.py) yields a started server; ``llm_env`` also points
CHRONOEVAL_MODEL / OPENAI_BASE_URL at it with a private cache directory.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class ToolCall:
    """One tool call the model makes."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    id: str = ""


@dataclass
class Reply:
    """A scripted reply: content and/or tool calls, or an HTTP error status; optional delay."""

    content: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    status: int = 200
    error: str = ""
    delay: float = 0.0


def as_reply(x: Any) -> Reply:
    """Turn a scripted value into a Reply (see the module docstring)."""
    if isinstance(x, Reply):
        return x
    if isinstance(x, str):
        return Reply(content=x)
    if isinstance(x, ToolCall):
        return Reply(tool_calls=[x])
    if isinstance(x, list) and x and all(isinstance(t, ToolCall) for t in x):
        return Reply(tool_calls=list(x))
    if hasattr(x, "model_dump_json"):
        return Reply(content=x.model_dump_json())
    return Reply(content=json.dumps(x))


class ScriptedOpenAIServer:
    """The server; use as a context manager or call ``start()`` / ``stop()``."""

    def __init__(self) -> None:
        self.queue: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.responder: Callable[[dict[str, Any]], Any] | None = None
        self._delay_next = 0.0
        self._lock = threading.Lock()
        self._n = 0
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    # -- scripting -----------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def script(self, *replies: Any) -> ScriptedOpenAIServer:
        """Queue replies, answered in order, one per request."""
        with self._lock:
            self.queue.extend(as_reply(r) for r in replies)
        return self

    def fail_with(self, status: int = 500, times: int = 1, message: str = "scripted failure") -> ScriptedOpenAIServer:
        """Queue ``times`` HTTP error responses."""
        return self.script(*[Reply(status=status, error=message) for _ in range(times)])

    def malformed_json(self, times: int = 1) -> ScriptedOpenAIServer:
        """Queue ``times`` replies whose content is not valid JSON."""
        return self.script(*[Reply(content='{"variants": ["unterminated' ) for _ in range(times)])

    def delay(self, seconds: float) -> ScriptedOpenAIServer:
        """Make the next reply wait ``seconds`` before answering."""
        self._delay_next = seconds
        return self

    def respond_with(self, fn: Callable[[dict[str, Any]], Any] | None) -> ScriptedOpenAIServer:
        """Answer with ``fn(request_body)`` whenever the queue is empty."""
        self.responder = fn
        return self

    def reset(self) -> None:
        with self._lock:
            self.queue.clear()
            self.requests.clear()
            self.responder = None
            self._delay_next = 0.0

    @property
    def calls(self) -> int:
        return len(self.requests)

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> ScriptedOpenAIServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- wire format -----------------------------------------------------------------------------
    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            self._n += 1
            reply = self.queue.popleft() if self.queue else None
            delay, self._delay_next = self._delay_next, 0.0
        if reply is None and self.responder is None:
            reply = Reply(status=500, error="script exhausted")
        elif reply is None:
            try:
                reply = as_reply(self.responder(body))
            except Exception as exc:  # a broken responder is a 500 the test can see, not a dropped connection
                reply = Reply(status=500, error=f"responder failed: {type(exc).__name__}: {exc}")
        if delay:
            reply = Reply(reply.content, reply.tool_calls, reply.status, reply.error, reply.delay + delay)
        return reply

    def completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        """The Chat Completions JSON for a reply."""
        calls = [{"id": t.id or f"call_{self._n}_{i}", "type": "function",
                  "function": {"name": t.name, "arguments": json.dumps(t.args)}}
                 for i, t in enumerate(reply.tool_calls)]
        message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
        if calls:
            message["tool_calls"] = calls
        prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        completion = len((reply.content or "").split()) + 10 * len(calls)
        return {"id": f"chatcmpl-{self._n}", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model", "scripted"),
                "choices": [{"index": 0, "message": message, "logprobs": None,
                             "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                          "total_tokens": prompt + completion}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                body["_path"] = self.path
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                reply = server._next(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    return self._send(reply.status, {"error": {"message": reply.error, "type": "server_error",
                                                               "code": reply.status}})
                try:
                    self._send(200, server.completion(body, reply))
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        return Handler


def last_user_message(body: dict[str, Any]) -> str:
    """The text of the last user message of a request (for responders)."""
    for m in reversed(body.get("messages", [])):
        if m.get("role") == "user":
            c = m.get("content")
            return c if isinstance(c, str) else " ".join(p.get("text", "") for p in c or [])
    return ""
