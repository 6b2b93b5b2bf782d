"""Incident pattern library: parameter models per kind, pure pattern functions in a registry,
resolution of targets/windows/cascades, and injection into generated data."""

from tools.patterns.magnitude import Magnitude, parse_magnitude
from tools.patterns.model import KINDS, Cascade, Incident

__all__ = ["KINDS", "Cascade", "Incident", "Magnitude", "parse_magnitude"]
