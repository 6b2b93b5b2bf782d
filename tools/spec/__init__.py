"""The domain spec: pydantic models, duration parsing, validation with YAML paths, packs."""

from tools.spec.durations import format_duration, parse_duration, parse_timestamp
from tools.spec.entity import EntityType, StateMachine
from tools.spec.errors import SpecError
from tools.spec.io import (
    dump_spec,
    list_packs,
    load_pack,
    load_spec,
    pack_path,
    parse_spec_text,
    resolve_spec,
    spec_json_schema,
)
from tools.spec.measurement import Measurement
from tools.spec.model import Epoch, Exemplar, Spec

__all__ = [
    "EntityType", "Epoch", "Exemplar", "Measurement", "Spec", "SpecError", "StateMachine", "dump_spec",
    "format_duration", "list_packs", "load_pack", "load_spec", "pack_path", "parse_duration",
    "parse_spec_text", "parse_timestamp", "resolve_spec", "spec_json_schema",
]
