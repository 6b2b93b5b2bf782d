"""Shared helpers for the generator acceptance tests.

Expected values are always computed from the spec objects (transition dicts, dwell
distributions, measurement parameters), never from generator internals or copied numbers.
"""

from __future__ import annotations

import hashlib
import textwrap
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from tools.common.seeds import EMISSION, SIMULATION, rng_for
from tools.generate import build_populations
from tools.generate.behaviour import Behaviour, build_behaviour
from tools.generate.emit import shard_table
from tools.generate.population import Population
from tools.generate.simulate import Segments, simulate
from tools.spec import Spec, parse_spec_text


def spec_from(text: str) -> Spec:
    return parse_spec_text(textwrap.dedent(text))


@dataclass
class Run:
    """One entity type simulated as a single shard."""

    spec: Spec
    pop: Population
    behaviour: Behaviour
    seg: Segments

    @property
    def states(self) -> list[str]:
        return list(self.pop.etype.states.states)


def simulate_type(spec: Spec, name: str, seed: int) -> Run:
    """Populations + behaviour + one vectorized simulation of every unit of ``name``."""
    pop = build_populations(spec, seed, 1.0)[name]
    b = build_behaviour(pop)
    seg = simulate(b, b.unit_group, pop.unit_t0, pop.unit_t1, rng_for(seed, name, SIMULATION, 0))
    return Run(spec, pop, b, seg)


def emit_type(spec: Spec, name: str, seed: int) -> tuple[Population, pa.Table]:
    """All rows of ``name`` as one shard (the real emission path, without Parquet)."""
    pop = build_populations(spec, seed, 1.0)[name]
    b = build_behaviour(pop) if pop.etype.states else None
    table = shard_table(pop, b, np.arange(pop.n_units), spec.start_dt.timestamp(),
                        rng_for(seed, name, SIMULATION, 0), rng_for(seed, name, EMISSION, 0))
    return pop, table


def column(table: pa.Table, name: str) -> np.ndarray:
    """A column as numpy (dictionary/string columns as object arrays of str)."""
    col = table.column(name).combine_chunks()
    if pa.types.is_dictionary(col.type) and col.null_count == 0:
        labels = np.array(col.dictionary.to_pylist(), dtype=object)
        return labels[col.indices.to_numpy(zero_copy_only=False)]
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    if pa.types.is_timestamp(col.type):
        return col.cast(pa.int64()).to_numpy() / 1e6
    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        return np.array(col.to_pylist(), dtype=object)
    return col.to_numpy(zero_copy_only=False)


def spec_matrix(rows: dict[str, dict[str, float]], states: list[str]) -> np.ndarray:
    """A transition matrix built straight from the spec's row dicts."""
    p = np.zeros((len(states), len(states)))
    for src, row in rows.items():
        for dst, prob in row.items():
            p[states.index(src), states.index(dst)] = prob
    return p


def embedded_stationary(p: np.ndarray) -> np.ndarray:
    """ν with ν P = ν, Σν = 1 (an irreducible chain)."""
    n = p.shape[0]
    a = np.vstack([p.T - np.eye(n), np.ones(n)])
    b = np.zeros(n + 1)
    b[-1] = 1.0
    nu, *_ = np.linalg.lstsq(a, b, rcond=None)
    return nu


def transitions(seg: Segments, n_states: int, unit_mask: np.ndarray | None = None) -> np.ndarray:
    """Counts [src, dst] of consecutive segments of the same unit (units optionally filtered)."""
    same = seg.unit[1:] == seg.unit[:-1]
    if unit_mask is not None:
        same &= unit_mask[seg.unit[:-1]]
    counts = np.zeros((n_states, n_states), np.int64)
    np.add.at(counts, (seg.state[:-1][same], seg.state[1:][same]), 1)
    return counts


def completed_dwells(seg: Segments) -> tuple[np.ndarray, np.ndarray]:
    """(state, dwell seconds) of every segment followed by another of the same unit."""
    same = seg.unit[1:] == seg.unit[:-1]
    return seg.state[:-1][same], (seg.t[1:] - seg.t[:-1])[same]


def assert_rows_within_3se(counts: np.ndarray, expected: np.ndarray, states: list[str], rows: list[str],
                           label: str = "", min_visits: int = 2000) -> None:
    """Each listed source row's empirical frequencies within 3 standard errors of the spec's row."""
    for src in rows:
        i = states.index(src)
        n = counts[i].sum()
        assert n >= min_visits, f"{label}: too few exits from {src} ({n}) for a meaningful test"
        freq = counts[i] / n
        for j, dst in enumerate(states):
            p = expected[i, j]
            se = np.sqrt(p * (1 - p) / n)
            assert abs(freq[j] - p) <= max(3 * se, 1e-12), (
                f"{label}: P({src}->{dst}) observed {freq[j]:.4f} over {n} exits, spec {p:.4f} (3 SE = {3 * se:.4f})")


def table_digest(table: pa.Table) -> str:
    """sha256 of a table's contents (schema + values) through the Arrow IPC stream format."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table.combine_chunks())
    return hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()


def file_sha256(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()
