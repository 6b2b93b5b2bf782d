"""Shared plumbing of the ``chronoeval`` command line: the Typer ``app``, ``--debug`` state and the
error contract every command uses.

User errors print one message that names the file/field/line and the fix, and exit with code 2;
anything else is an internal error (exit 1); ``--debug`` adds the traceback. Command modules
(``graph/cli.py`` and the ``graph/cli_*.py`` modules it imports) register on ``app`` and wrap their
bodies in ``with errors():``. A module may add its own user-error types with ``register_user_errors``.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import click
import typer

from graph.console import err, print_error


def _flag_type_hidden() -> None:
    """Typer's rich help prints a type after every option, ``<bool>`` for on/off flags too, which
    reads as if the flag took a value: flags show none."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "_flags_hidden", False):
        return

    def display_type_rich(self, ctx):
        return None if (self.is_flag or self.count) else shown(self, ctx)

    display_type_rich._flags_hidden = True
    TyperOption.display_type_rich = display_type_rich


_flag_type_hidden()


def _caches_in_home() -> None:
    """Third-party caches the commands cause (matplotlib's font list) go under $CHRONOEVAL_HOME/cache
    unless the user placed them, so chronoeval writes nothing outside its home and the outputs."""
    import os

    from graph.paths import chronoeval_home

    os.environ.setdefault("MPLCONFIGDIR", str(chronoeval_home() / "cache" / "matplotlib"))


def _llm_cache_in_home() -> None:
    """The agents' LLM response cache goes to $CHRONOEVAL_CACHE_DIR / $CHRONOEVAL_HOME/cache/llm (read
    at each call, so a changed environment is seen). Done when a command starts (``errors``), not
    at import, so ``--help`` loads no agent module."""
    from agents.llm_cache import use_cache_dir
    from graph.paths import llm_cache_dir

    use_cache_dir(llm_cache_dir)


_caches_in_home()

app = typer.Typer(
    name="chronoeval",
    help="Evals for time-series data-analysis agents: generated telemetry, injected incidents, "
         "questions with computed answers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class _State:
    debug = False


# OSError subclasses that are about the user's paths, not about chronoeval.
_PATH_ERRORS = (FileNotFoundError, FileExistsError, PermissionError, IsADirectoryError, NotADirectoryError)


_EXTRA_USER_ERRORS: list[type[BaseException]] = []


def register_user_errors(*types: type[BaseException]) -> None:
    """Declare exception types that mean 'the user gave bad input' (exit 2, no traceback)."""
    _EXTRA_USER_ERRORS.extend(t for t in types if t not in _EXTRA_USER_ERRORS)


def _user_error_types() -> tuple[type[BaseException], ...]:
    from tools.bundle import BundleIntegrityError, LockHeldError
    from tools.bundle.opened import BundleError
    from tools.bundle.paths import UnsafePathError
    from tools.spec import SpecError
    from tools.sqlsafe import UnsafeSQLText

    return (SpecError, BundleError, BundleIntegrityError, LockHeldError, UnsafePathError, UnsafeSQLText,
            *_PATH_ERRORS, *_EXTRA_USER_ERRORS)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        if isinstance(exc, FileExistsError | NotADirectoryError):
            blocker = next((p for p in (Path(exc.filename), *Path(exc.filename).parents) if p.is_file()), None)
            if blocker is not None:
                return f"{blocker} is a file, not a directory; choose another -o path"
        hint = {
            FileNotFoundError: "check the path",
            PermissionError: "choose a location you can write to, or fix its permissions",
            FileExistsError: "choose another path or pass --force",
        }.get(type(exc), "check the path")
        return f"{exc.filename}: {exc.strerror.lower()}; {hint}"
    return str(exc) or type(exc).__name__


def _fail(exc: BaseException, code: int) -> NoReturn:
    if _State.debug:
        err.out("".join(traceback.format_exception(exc)), highlight=False, end="")
    if code == 2:
        print_error(_describe(exc))
    else:
        hint = "" if _State.debug else " (run with --debug for the traceback)"
        print_error(f"{type(exc).__name__}: {exc}{hint}", prefix="internal error: ")
    raise typer.Exit(code)


@contextmanager
def errors() -> Iterator[None]:
    """Turn exceptions into the CLI's error contract (exit 2 user error, exit 1 internal error). Every
    command body runs inside it, so it also points the agents' LLM cache at the home first."""
    try:
        _llm_cache_in_home()
        yield
    except (click.exceptions.Exit, typer.Exit, click.ClickException, click.exceptions.Abort,
            typer.Abort, typer.TyperException):  # typer ships its own click: both families pass through
        raise
    except Exception as exc:
        _fail(exc, 2 if isinstance(exc, _user_error_types()) else 1)
