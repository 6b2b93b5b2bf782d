"""Seed derivation: one SeedSequence per (entity type, purpose, shard), independent of order."""

from __future__ import annotations

import zlib

import numpy as np

POPULATION, SIMULATION, MEASUREMENT, EMISSION, INCIDENTS = range(5)


def rng_for(seed: int, entity_type: str, purpose: int, shard: int = 0) -> np.random.Generator:
    """A Generator that depends only on the seed, the entity type's name, the purpose and the shard,
    so adding an entity type or regenerating one shard alone never changes the others."""
    key = (zlib.crc32(entity_type.encode()), purpose, shard)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))
