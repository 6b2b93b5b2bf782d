"""chronoeval knowledge package: the files knowledge owns (domain packs, personas, the domain
catalog, retrieval docs) and the RAG memory.

``from knowledge import load_pack, load_personas, Memory, ExperienceNote`` — packs.py, personas.py,
catalog/, memory.py. Names are imported lazily so that importing the package stays cheap.
"""

from importlib import import_module

_EXPORTS = {
    "Memory": "memory", "RebuildSummary": "memory",
    "Doc": "documents", "ExperienceNote": "documents", "Hit": "documents", "NOTE_KINDS": "kinds",
    "DOC_KINDS": "kinds",
    "Embedder": "embed", "EmbedderError": "embed", "HashEmbedder": "embed",
    "SentenceTransformerEmbedder": "embed", "embedder_from_name": "embed",
    "list_packs": "packs", "load_pack": "packs", "pack_path": "packs", "resolve_spec": "packs",
    "load_personas": "personas",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"knowledge.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'knowledge' has no attribute {name!r}")
