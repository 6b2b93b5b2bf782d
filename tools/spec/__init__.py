"""The domain spec: pydantic models, duration parsing, validation with YAML paths
(the built-in packs are in ``knowledge.packs``).

Names are imported lazily (importing ``tools.spec`` stays cheap); the duration helpers live in
``tools.common.durations`` (below both the spec and the pattern kinds) and are exported here too.
"""

from importlib import import_module

_EXPORTS = {
    "format_duration": "tools.common.durations", "parse_duration": "tools.common.durations",
    "parse_timestamp": "tools.common.durations",
    "EntityType": "entity", "StateMachine": "entity", "SpecError": "errors", "Measurement": "measurement",
    "Epoch": "model", "Exemplar": "model", "Spec": "model",
    "dump_spec": "io", "load_spec": "io", "parse_spec_text": "io", "spec_json_schema": "io",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        module = _EXPORTS[name]
        return getattr(import_module(module if "." in module else f"tools.spec.{module}"), name)
    raise AttributeError(f"module 'tools.spec' has no attribute {name!r}")
