"""Imports every ``graph/cli_*.py`` command module so its commands register on ``graph.cli_base.app``.

Each capability (infer, memory, paraphrase, eval, build, ...) keeps its commands in its own module;
add the module's import here.
"""

from graph import (  # noqa: F401
    cli_build,
    cli_chat,
    cli_eval,
    cli_export,
    cli_infer,
    cli_memory,
    cli_paraphrase,
    cli_verify,
)
