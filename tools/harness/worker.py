"""The process a ``python:`` agent runs in (started as a script by ``tools.harness.pyagent``).

Standard library only, and it imports nothing of the harness: the process holds the agent's
module, the question being asked and the data context, never the suite. Protocol: the harness
writes one JSON request per line on stdin (``{"question", "context"}``); replies go one JSON line
each to a private file descriptor (the agent's own prints go to stderr): first ``{"ready": true}``
or ``{"load_error": "..."}``, then ``{"output", "cost", "tokens"}`` or ``{"error"}`` per request.
"""

import importlib
import importlib.util
import json
import os
import sys


def _describe(exc: BaseException) -> str:
    try:
        return f"{type(exc).__name__}: {exc}"
    except BaseException:  # an exception whose __str__ raises
        return type(exc).__name__


def _load(spec: str):
    mod_name, _, fn_name = spec.rpartition(":")
    if mod_name.endswith(".py"):
        s = importlib.util.spec_from_file_location(os.path.basename(mod_name)[:-3], mod_name)
        if s is None or s.loader is None:
            raise ImportError(f"cannot load {mod_name}")
        module = importlib.util.module_from_spec(s)
        s.loader.exec_module(module)
    else:
        module = importlib.import_module(mod_name)
    fn = getattr(module, fn_name, None)
    if hasattr(fn, "invoke") and not isinstance(fn, type):  # a LangChain Runnable (chain, compiled graph)
        return lambda question, context: fn.invoke({"question": question, "context": context})
    if not callable(fn):
        raise AttributeError(f"{mod_name} has no callable {fn_name!r}")
    return fn


def _num(v):
    return v if isinstance(v, int | float) and not isinstance(v, bool) else None


def _reply(out) -> dict:
    """The agent's return value as a JSON-able reply (the same unwrapping as the in-process adapters)."""
    if hasattr(out, "content") and not isinstance(out, dict | str):  # a LangChain message
        out = out.content
    if isinstance(out, dict):
        msgs = out.get("messages")
        if msgs and hasattr(msgs[-1], "content"):
            return {"output": str(msgs[-1].content)}
        return {"output": json.loads(json.dumps(out, default=str)), "cost": _num(out.get("cost")),
                "tokens": _num(out.get("tokens"))}
    if out is None or isinstance(out, str | int | float | bool):
        return {"output": out}
    if isinstance(out, list):
        return {"output": json.loads(json.dumps(out, default=str))}
    return {"output": str(out)}


def main() -> None:
    spec, extra_path = sys.argv[1], json.loads(sys.argv[2])
    if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
        sys.path.pop(0)  # the harness's own directory is not the agent's import path
    sys.path[:0] = [p for p in extra_path if p not in sys.path]
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    os.dup2(2, 1)  # the agent's prints must not mix with the replies, nor its reads with the requests
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    sys.stdout, sys.stdin = sys.stderr, open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process

    def send(obj: dict) -> None:
        try:
            line = json.dumps(obj, allow_nan=False)
        except (TypeError, ValueError) as exc:
            line = json.dumps({"error": f"the answer cannot be sent as JSON ({_describe(exc)})"})
        channel.write(line + "\n")
        channel.flush()

    try:
        fn = _load(spec)
    except BaseException as exc:
        send({"load_error": _describe(exc)})
        return
    send({"ready": True})
    for line in requests:
        try:
            req = json.loads(line)
            send(_reply(fn(req["question"], req["context"])))
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too: the agent's failure is its answer
            send({"error": _describe(exc)})


if __name__ == "__main__":
    main()
