"""Heavy-tailed noise is chosen by likelihood: a measurement with known Student-t noise (df 4) comes back
as Student-t with about that df and its tail share; spikes on a Gaussian core stay spikes; Gaussian
noise stays Gaussian."""

from __future__ import annotations

import textwrap

import pandas as pd
import pytest

from tools.generate import generate_bundle
from tools.infer import infer
from tools.infer.fidelity import entity_for_table, regenerate
from tools.infer.fit_noise import tail_share
from tools.spec import parse_spec_text

WORLD = textwrap.dedent("""
    name: tails
    seed: 4
    start: "2026-01-05T00:00:00Z"
    horizon: 2d
    entities:
      - name: host
        table: host_metrics
        id: {column: host_id, format: "H{i:02d}"}
        count: 30
        emission: {kind: periodic, cadence: 5m, timestamp_column: ts}
        measurements:
          - {name: load, base: 50, noise: {kind: iid, sigma: 2, df: 4}, decimals: 3}
          - name: temp
            base: 40
            noise: {kind: iid, sigma: 1}
            spikes: {rate: 0.01, scale: 10, direction: both}
            decimals: 3
          - {name: hum, base: 60, noise: {kind: iid, sigma: 3}, decimals: 3}
""")


@pytest.fixture(scope="module")
def tails(tmp_path_factory):
    out = tmp_path_factory.mktemp("tails") / "bundle"
    generate_bundle(parse_spec_text(WORLD), out)
    path = out / "data" / "host_metrics.parquet"
    result, _ = infer([path], seed=2)
    return result, pd.read_parquet(path)


def test_student_t_noise_is_recovered_with_its_tail_share(tails):
    result, frame = tails
    ms = {m.name: m for m in entity_for_table(result.spec, "host_metrics").measurements}
    load = ms["load"]
    assert load.noise.kind == "iid" and load.noise.df == pytest.approx(4, rel=0.3) and load.spikes is None
    assert load.noise.sigma == pytest.approx(2, rel=0.15)
    regen = regenerate(result.spec, seed=9)["host_metrics"]
    a, b = tail_share(frame["load"].to_numpy(float)), tail_share(regen["load"].to_numpy(float))
    assert a > 0.005 and b == pytest.approx(a, rel=0.3)
    assert "Student-t" in result.yaml_text


def test_spikes_stay_spikes_and_gaussian_stays_gaussian(tails):
    result, _ = tails
    ms = {m.name: m for m in entity_for_table(result.spec, "host_metrics").measurements}
    assert ms["temp"].noise.df is None and ms["temp"].spikes is not None
    assert ms["temp"].spikes.rate == pytest.approx(0.01, rel=0.3)
    assert ms["hum"].noise.df is None and ms["hum"].spikes is None
