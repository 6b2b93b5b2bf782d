"""The user error of spec inference: names the file, the column (and line) and the fix."""

from __future__ import annotations


class InferError(ValueError):
    """Bad sample data or DDL (a user error: the CLI exits 2 with this message, no traceback)."""

    def __init__(self, source: str, message: str):
        self.source = source
        self.message = message
        super().__init__(f"{source}: {message}")
