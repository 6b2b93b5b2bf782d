"""Incident pattern kinds: one module per kind in ``tools/patterns/kinds`` (parameter model, pure
injection function and a ``PatternKind`` registry entry), the shared parameter parts, magnitudes
and the spec-level incident checks. Applying incidents to a generated world (resolution, injection,
the manifest) is in ``tools.generate.incidents``."""

from tools.patterns.magnitude import Magnitude, parse_magnitude

__all__ = ["Magnitude", "parse_magnitude"]
