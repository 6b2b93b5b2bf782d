"""chronoeval graph package: the CLI (``graph.cli``) and the LangGraph workflow.

Keep this module free of imports: every ``chronoeval`` command imports ``graph.cli`` through it,
and spec errors should be reported without first loading LangGraph, DuckDB or pyarrow.
"""
