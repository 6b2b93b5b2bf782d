"""chronoeval's deterministic core: no LLM, no LangGraph, no environment reads, explicit RNGs."""

__version__ = "0.1.0"
