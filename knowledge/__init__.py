"""chronoeval knowledge package: the built-in domain packs and the RAG memory.

``from knowledge import Memory, ExperienceNote`` — see knowledge/memory.py. Names are imported
lazily so that importing the package (e.g. for its pack files) stays cheap.
"""

from importlib import import_module

_EXPORTS = {
    "Memory": "memory", "RebuildSummary": "memory",
    "Doc": "documents", "ExperienceNote": "documents", "Hit": "documents", "NOTE_KINDS": "kinds",
    "DOC_KINDS": "kinds",
    "Embedder": "embed", "EmbedderError": "embed", "HashEmbedder": "embed",
    "SentenceTransformerEmbedder": "embed", "embedder_from_name": "embed",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"knowledge.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'knowledge' has no attribute {name!r}")
