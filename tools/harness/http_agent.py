"""``http:URL`` agents: an OpenAI-compatible ``/chat/completions`` endpoint under a total deadline.

The deadline is per answer, not per socket read: a watchdog shuts the socket down when it passes,
so a server trickling one byte a second ends at the timeout like a silent one. The body is read
up to the reply cap. Connection errors, 429 and 5xx are retried while the deadline allows. No
credential is sent unless the user names one (``api_key``, from ``--agent-key-env``).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.parse

from tools.harness.agent_kinds import AdapterOptions
from tools.harness.context import AgentContext, HarnessError
from tools.harness.sandbox import DEFAULT_MAX_REPLY


class _Deadline(Exception):
    pass


class _TooLarge(Exception):
    pass


def post(url: str, body: bytes, headers: dict[str, str], *, deadline: float, max_reply: int) -> tuple[int, bytes]:
    """POST ``body`` and return (status, body), ending at ``deadline`` (monotonic) whatever the server
    does. Raises ``_Deadline``, ``_TooLarge`` or ``OSError``/``http.client.HTTPException``."""
    parts = urllib.parse.urlsplit(url)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _Deadline
    cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = cls(parts.hostname or "", parts.port, timeout=remaining)
    fired = threading.Event()

    def cut() -> None:
        fired.set()
        sock = conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    watchdog = threading.Timer(remaining, cut)
    watchdog.daemon = True
    watchdog.start()
    try:
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        conn.request("POST", path, body=body, headers=headers)
        resp = conn.getresponse()
        data = bytearray()
        while True:
            chunk = resp.read1(65536) if hasattr(resp, "read1") else resp.read(65536)
            if not chunk:
                break
            data += chunk
            if len(data) > max_reply:
                raise _TooLarge
            if time.monotonic() >= deadline:
                raise _Deadline
        if fired.is_set():
            raise _Deadline
        return resp.status, bytes(data)
    except (OSError, http.client.HTTPException):
        if fired.is_set() or time.monotonic() >= deadline:
            raise _Deadline from None
        raise
    finally:
        watchdog.cancel()
        conn.close()


class HttpAgent:
    """An OpenAI-compatible endpoint; the model answers from the schema alone (it gets no tools)."""

    def __init__(self, url: str, model: str, timeout: float, retries: int = 2, api_key: str = "",
                 max_reply: int = DEFAULT_MAX_REPLY):
        base = url.rstrip("/")
        if urllib.parse.urlsplit(base).scheme not in ("http", "https"):
            raise HarnessError(f"http agent URL {url!r} must start with http:// or https://")
        self.url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.model, self.timeout, self.retries, self.api_key = model, timeout, retries, api_key
        self.max_reply = max_reply

    def __call__(self, question: str, context: AgentContext):
        from tools.harness.adapters import Reply

        deadline = time.monotonic() + self.timeout
        body = json.dumps({"model": self.model, "messages": [
            {"role": "system", "content": "You answer questions about the data below. Reply with the answer "
                                          "and nothing else.\n\n" + context.schema_text()},
            {"role": "user", "content": question}]}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last, tried = "", 0
        for attempt in range(self.retries + 1):
            if attempt:
                pause = min(0.2 * 2**attempt, 5.0)
                if time.monotonic() + pause >= deadline:
                    break
                time.sleep(pause)
            tried += 1
            try:
                status, data = post(self.url, body, headers, deadline=deadline, max_reply=self.max_reply)
            except _Deadline:
                return Reply(error=f"timeout: no answer after {self.timeout:g} s" + (f" ({last})" if last else ""))
            except _TooLarge:
                return Reply(error=f"reply too large: more than {self.max_reply:,} bytes from {self.url} (--max-reply)")
            except (OSError, http.client.HTTPException) as exc:
                last = f"transport error talking to {self.url}: {exc}"
                continue
            if status == 429 or status >= 500:
                last = f"HTTP {status} from {self.url}"
                continue
            if status >= 400:
                return Reply(error=f"HTTP {status} from {self.url}")
            try:
                payload = json.loads(data.decode("utf-8", "replace"))
                text = payload["choices"][0]["message"]["content"]
            except ValueError:
                return Reply(error=f"{self.url} returned a body that is not JSON")
            except (KeyError, IndexError, TypeError):
                return Reply(error=f"{self.url} returned no choices[0].message.content")
            usage = payload.get("usage") if isinstance(payload, dict) else None
            tokens = usage.get("total_tokens") if isinstance(usage, dict) else None
            return Reply(output=text, tokens=tokens if isinstance(tokens, int) else None)
        return Reply(error=f"{last} (after {tried} attempt{'s' if tried > 1 else ''})" if last else
                     f"timeout: no answer after {self.timeout:g} s")


def http_adapter(target: str, options: AdapterOptions) -> HttpAgent:
    """The ``http:`` adapter's factory (see ``tools.harness.agent_kinds``)."""
    return HttpAgent(target, options.model, options.timeout, api_key=options.api_key, max_reply=options.max_reply)
