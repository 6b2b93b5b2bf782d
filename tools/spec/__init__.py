"""The domain spec: pydantic models, duration parsing, validation with YAML paths, packs.

Names are imported lazily, so ``tools.patterns`` (whose incident models the spec uses) can import
``tools.spec.base`` without a circular import.
"""

from importlib import import_module

_EXPORTS = {
    "format_duration": "durations", "parse_duration": "durations", "parse_timestamp": "durations",
    "EntityType": "entity", "StateMachine": "entity", "SpecError": "errors", "Measurement": "measurement",
    "Epoch": "model", "Exemplar": "model", "Spec": "model",
    "dump_spec": "io", "list_packs": "io", "load_pack": "io", "load_spec": "io", "pack_path": "io",
    "parse_spec_text": "io", "resolve_spec": "io", "spec_json_schema": "io",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"tools.spec.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'tools.spec' has no attribute {name!r}")
