"""Shared pydantic base and field types for the spec model."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

from tools.common.durations import parse_duration, parse_timestamp


class SpecModel(BaseModel):
    """Strict base: unknown fields are errors, so typos never pass silently."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)


def _check_duration(value: str) -> str:
    parse_duration(value)
    return value


def _check_positive_duration(value: str) -> str:
    if parse_duration(value) <= 0:
        raise ValueError(f"duration '{value}' must be greater than zero")
    return value


def _check_timestamp(value: str) -> str:
    parse_timestamp(value)
    return value


Duration = Annotated[str, AfterValidator(_check_duration)]
"""A duration string such as ``15m`` (zero allowed)."""

PositiveDuration = Annotated[str, AfterValidator(_check_positive_duration)]
"""A duration string that must be greater than zero."""

Timestamp = Annotated[str, AfterValidator(_check_timestamp)]
"""An ISO-8601 timestamp with zone, kept as written so YAML round-trips."""
