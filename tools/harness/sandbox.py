"""Processes of agents-under-test: a scrubbed environment, a total deadline, a cap on the reply, and
nothing left behind.

Every process is started in a new session with a call token in its environment. When the answer is
in (or the deadline passes, or the reply grows past the cap) the whole tree is killed with SIGKILL
and reaped: the process group, the descendants still linked to it, and any process of ours that
carries the token (a detached, re-parented grandchild still does). An agent that scrubs its own
children's environment and detaches them escapes this sweep; chronoeval is not an OS sandbox.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_MAX_REPLY = 1_000_000
CALL_TOKEN = "CHRONOEVAL_CALL_TOKEN"
EXIT_GRACE_S = 0.3  # after the agent exits, how long its pipes may stay open (a detached child holding them)
STDERR_TAIL = 8192
# What a program needs to run; nothing that authenticates the evaluator anywhere.
SAFE_ENV = frozenset({"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP",
                      "TMP", "TERM", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH", "SYSTEMROOT"})


class ProcessError(RuntimeError):
    """A harness-side failure to talk to an agent process (its reply is a runtime error)."""


def agent_environment(parent: Mapping[str, str], passed: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of an agent process: the few variables a program needs from ``parent``
    (PATH, HOME, locale, ...) plus what the user passed on purpose (``--agent-env``). API keys and
    every other evaluator variable stay out."""
    env = {k: v for k, v in parent.items() if k in SAFE_ENV or k.startswith("LC_")}
    env.setdefault("PATH", os.defpath)
    env.update(passed or {})
    return env


def spawn(args: str | list[str], *, cwd: str | None, env: Mapping[str, str], shell: bool = False,
          extra_fds: tuple[int, ...] = ()) -> tuple[subprocess.Popen, str]:
    """Start ``args`` in a new session with binary pipes and a fresh call token; returns (process, token)."""
    token = uuid.uuid4().hex
    proc = subprocess.Popen(args, shell=shell, cwd=cwd, env={**env, CALL_TOKEN: token}, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            pass_fds=extra_fds)
    return proc, token


def _tagged(token: str, since: float) -> list:
    """Our processes created after ``since`` whose environment carries ``token``."""
    import psutil

    uid, out = os.getuid(), []
    for p in psutil.process_iter(["uids", "create_time"]):
        try:
            if p.info["uids"] is None or p.info["uids"].real != uid or p.info["create_time"] < since - 1:
                continue
            if p.environ().get(CALL_TOKEN) == token:
                out.append(p)
        except (psutil.Error, OSError):
            continue
    return out


def _gone(p) -> bool:
    """Dead, or a zombie (killed; its parent reaps it, or init once the parent dies)."""
    import psutil

    try:
        return p.status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True


def _wait_gone(procs: list, timeout: float) -> None:
    end = time.monotonic() + timeout
    while procs and time.monotonic() < end:
        procs = [p for p in procs if not _gone(p)]
        if procs:
            time.sleep(0.01)


def kill_tree(proc: subprocess.Popen, token: str, *, since: float, keep_leader: bool = False) -> int:
    """SIGKILL ``proc``'s process group, its descendants and every process carrying ``token``, then
    reap them; with ``keep_leader`` only the helpers die (a reusable worker stays). Returns how many
    processes other than ``proc`` were killed."""
    import psutil

    killed: set[int] = set()
    for _ in range(3):  # a process forking while we sweep is caught on the next round
        victims = {p.pid: p for p in _tagged(token, since)}
        try:
            victims.update((c.pid, c) for c in psutil.Process(proc.pid).children(recursive=True))
        except psutil.Error:
            pass
        for pid in (os.getpid(), proc.pid):
            victims.pop(pid, None)
        victims = {pid: p for pid, p in victims.items() if not _gone(p)}
        if not keep_leader and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for p in victims.values():
            try:
                p.kill()
            except psutil.Error:
                pass
        _wait_gone(list(victims.values()), timeout=1.0)
        if not keep_leader:
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                continue
        killed.update(victims)
        if not victims:
            break
    return len(killed)


def close_pipes(proc: subprocess.Popen) -> None:
    """Close the parent's ends of the process pipes."""
    for f in (proc.stdin, proc.stdout, proc.stderr):
        if f is not None:
            try:
                f.close()
            except OSError:
                pass


@dataclass
class Exchange:
    """What one exchange with an agent process produced."""

    out: bytes = b""
    err: bytes = b""
    error: str | None = None  # timeout / reply too large, already phrased for the report
    exited: bool = False


def exchange(proc: subprocess.Popen, *, send: bytes, deadline: float, timeout: float, max_reply: int,
             until_line: bool = False, out_fd: int | None = None, close_stdin: bool = True) -> Exchange:
    """Write ``send`` to the process and read its reply until EOF and exit (``until_line``: until the
    first full line on ``out_fd``), the ``deadline`` (monotonic) or ``max_reply`` bytes, whichever
    comes first. A process that exits while its pipes stay open (a detached child holds them) is
    given ``EXIT_GRACE_S``, then the reply is what arrived."""
    res = Exchange()
    out_fd = proc.stdout.fileno() if out_fd is None else out_fd
    err_fd = proc.stderr.fileno()
    in_fd = proc.stdin.fileno()
    sel = selectors.DefaultSelector()
    out, err = bytearray(), bytearray()
    for fd, ev in ((out_fd, selectors.EVENT_READ), (err_fd, selectors.EVENT_READ)):
        os.set_blocking(fd, False)
        sel.register(fd, ev)
    os.set_blocking(in_fd, False)
    pending = memoryview(send)
    if pending.nbytes:
        sel.register(in_fd, selectors.EVENT_WRITE)
    elif close_stdin:
        proc.stdin.close()
    exited_at = None
    try:
        while True:
            now = time.monotonic()
            if now >= deadline:
                res.error = f"timeout: no answer after {timeout:g} s"
                break
            if proc.poll() is not None:
                res.exited = True
                exited_at = exited_at or now
                open_reads = [k for k in sel.get_map().values() if k.fd != in_fd]
                if not open_reads or now - exited_at > EXIT_GRACE_S:
                    break
            for key, _ in sel.select(timeout=min(deadline - now, 0.05)):
                if key.fd == in_fd:
                    try:
                        n = os.write(in_fd, pending[:65536])
                        pending = pending[n:]
                    except (BrokenPipeError, OSError):
                        pending = pending[:0]
                    if not pending.nbytes:
                        sel.unregister(in_fd)
                        if close_stdin:
                            proc.stdin.close()
                    continue
                try:
                    chunk = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(key.fd)
                elif key.fd == out_fd:
                    out += chunk
                else:
                    err += chunk
                    del err[:-STDERR_TAIL]
            if len(out) > max_reply:
                res.error = f"reply too large: more than {max_reply:,} bytes (--max-reply)"
                break
            if until_line and b"\n" in out:
                break
            if not until_line and not sel.get_map() and proc.poll() is not None:
                res.exited = True
                break
    finally:
        sel.close()
    res.out, res.err = bytes(out), bytes(err)
    return res


def run_command(command: str, *, stdin: bytes, cwd: str | None, env: Mapping[str, str], timeout: float,
                max_reply: int = DEFAULT_MAX_REPLY) -> tuple[Exchange, int | None]:
    """Run a shell command once: ``stdin`` in, stdout back, within ``timeout`` seconds in total;
    returns the exchange and the exit code (None when it was killed)."""
    since = time.time()
    deadline = time.monotonic() + timeout
    proc, token = spawn(command, cwd=cwd, env=env, shell=True)
    try:
        res = exchange(proc, send=stdin, deadline=deadline, timeout=timeout, max_reply=max_reply)
        code = proc.poll() if res.error is None else None
    finally:
        kill_tree(proc, token, since=since)
        close_pipes(proc)
    return res, code


def describe_exit(code: int | None) -> str:
    """'exit code 3' or 'killed by SIGSEGV'."""
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
