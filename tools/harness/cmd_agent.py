"""``cmd:"..."`` agents: a shell command gets the question on stdin and answers on stdout.

It runs in the agent's working directory with the given environment plus ``CHRONOEVAL_*`` context
variables; its whole process tree is killed at the deadline and after every answer.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path

from tools.harness.adapters import Reply
from tools.harness.agent_kinds import AdapterOptions
from tools.harness.context import AgentContext, HarnessError
from tools.harness.sandbox import DEFAULT_MAX_REPLY, agent_environment, describe_exit, run_command


def absolute_command(command: str, base: Path) -> str:
    """``command`` with its words that name files under ``base`` made absolute (the agent runs in its
    own working directory, so ``python my_agent.py`` must still find my_agent.py). A command with
    shell syntax (pipes, redirections, variables) is left as written."""
    if any(ch in command for ch in "|&;<>()$`\\\n"):
        return command
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    out = [str((base / w).resolve()) if w and not w.startswith(("-", "/")) and (base / w).exists() else w
           for w in words]
    return shlex.join(out) if out != words else command


# words a shell runs without a program file (the check below cannot judge them)
_SHELL_WORDS = {"cd", "exec", "env", "export", "set", "source", ".", "eval", "command", "builtin", "time",
                "nice", "timeout", "exit", "echo", "printf", "test", "[", "true", "false", "read", "if", "for",
                "while", "case", "{", "(", "!"}


def missing_program(command: str, path: str) -> str | None:
    """The program a ``cmd:`` command starts when it exists neither as a file nor on ``path``
    (None when it exists, or the command starts with a shell word this check cannot judge)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or "=" in words[0] or words[0] in _SHELL_WORDS or any(c in words[0] for c in "$`*?;|&<>"):
        return None
    first = words[0]
    if "/" in first:
        return None if Path(first).expanduser().exists() else first
    return None if shutil.which(first, path=path) else first


class CommandAgent:
    """A shell command: the question on stdin, the answer on stdout. It runs in the agent's working
    directory with the given environment plus ``CHRONOEVAL_*`` context variables; its whole process
    tree is killed at the deadline and after every answer; stdout beyond ``max_reply`` is an error."""

    def __init__(self, command: str, timeout: float, *, cwd: str | None = None,
                 env: Mapping[str, str] | None = None, max_reply: int = DEFAULT_MAX_REPLY):
        if not command.strip():
            raise HarnessError('cmd: agent needs a command, e.g. cmd:"python my_agent.py"')
        command = command.strip()
        if len(command) > 1 and command[0] == command[-1] and command[0] in "'\"":
            command = command[1:-1]  # cmd:"..." written with its quotes
        self.command = absolute_command(command, Path.cwd()) if cwd else command
        self.timeout, self.cwd, self.max_reply = timeout, cwd, max_reply
        self.env = dict(env) if env is not None else agent_environment({})
        missing = missing_program(self.command, self.env.get("PATH") or os.defpath)
        if missing:
            raise HarnessError(f"cmd: agent: the program {missing!r} does not exist (not a file, not on PATH); "
                               "check the command, e.g. cmd:\"python my_agent.py\" (relative paths are resolved "
                               "against the current directory)")

    def __call__(self, question: str, context: AgentContext) -> Reply:
        env = {**self.env, "CHRONOEVAL_BACKEND": context.backend, "CHRONOEVAL_DB": context.db_path or "",
               "CHRONOEVAL_DATA_DIR": context.data_dir or "", "CHRONOEVAL_DSN": context.dsn or "",
               "CHRONOEVAL_WORKDIR": context.workdir or "", "CHRONOEVAL_TABLES": ",".join(context.tables),
               "CHRONOEVAL_SCHEMA": json.dumps(context.as_dict()["schema"])}
        res, code = run_command(self.command, stdin=question.encode(), cwd=self.cwd, env=env,
                                timeout=self.timeout, max_reply=self.max_reply)
        if res.error:
            return Reply(error=res.error)
        if code != 0:
            return Reply(error=f"{describe_exit(code)}: {res.err.decode('utf-8', 'replace').strip()[-300:]}")
        return Reply(output=res.out.decode("utf-8", "replace"))


def cmd_adapter(target: str, options: AdapterOptions) -> CommandAgent:
    """The ``cmd:`` adapter's factory (see ``tools.harness.agent_kinds``)."""
    return CommandAgent(target, options.timeout, cwd=options.workdir, env=options.env, max_reply=options.max_reply)
