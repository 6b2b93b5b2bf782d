"""Imports every ``graph/cli_*.py`` command module so its commands register on ``graph.cli_base.app``.

Each capability (infer, memory, paraphrase, eval, ...) keeps its commands in its own module; add
the module's import here.
"""
import graph.cli_eval  # noqa: F401
from graph import cli_memory  # noqa: F401
from graph import cli_infer  # noqa: F401
from graph import cli_paraphrase  # noqa: F401
