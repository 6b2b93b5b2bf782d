"""Bad input: a clear InferError naming the file, column and line, or the documented fallback."""

from __future__ import annotations

import pandas as pd
import pytest

from tools.infer import InferError, infer
from tools.infer.fidelity import entity_for_table
from tools.spec.io import parse_spec_text


def _csv(tmp_path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text)
    return p


def _series(n_ent: int = 3, n: int = 8, zone: str = "+00:00") -> str:
    rows = ["host_id,ts,cpu"]
    for e in range(n_ent):
        rows += [f"H{e},2026-01-01T{h:02d}:00:00{zone},{50 + e + (h % 3)}" for h in range(n)]
    return "\n".join(rows) + "\n"


def test_empty_file_and_header_only(tmp_path):
    with pytest.raises(InferError, match=r"empty\.csv: the file is empty"):
        infer([_csv(tmp_path, "empty.csv", "")])
    with pytest.raises(InferError, match="header but no data rows"):
        infer([_csv(tmp_path, "header.csv", "a,b,c\n")])


def test_no_timestamp_and_no_id_is_not_a_time_series(tmp_path):
    with pytest.raises(InferError, match="not a time-series table.*add a timestamp column"):
        infer([_csv(tmp_path, "t.csv", "color,size\nred,1\nred,1\nblue,2\n")])


def test_no_timestamp_with_an_id_is_a_dimension_table(tmp_path):
    result, _ = infer([_csv(tmp_path, "things.csv", "thing_id,color\nT1,red\nT2,blue\nT3,red\n")])
    e = entity_for_table(result.spec, "things")
    assert e.emission is None and e.count == 3 and e.attributes[0].dist.values == {"red": 0.6667, "blue": 0.3333}


def test_mixed_zoned_and_naive_timestamps(tmp_path):
    text = _series().replace("2026-01-01T03:00:00+00:00", "2026-01-01T03:00:00", 1)
    with pytest.raises(InferError, match=r"column 'ts' mixes timestamps with and without a time zone \(line 5"):
        infer([_csv(tmp_path, "m.csv", text)])


def test_mixed_offsets_are_converted_to_utc(tmp_path):
    text = _series().replace("2026-01-01T03:00:00+00:00", "2026-01-01T05:00:00+02:00")
    result, _ = infer([_csv(tmp_path, "m.csv", text)])
    assert any("mixes UTC offsets (+00:00, +02:00); all converted to UTC" in n for n in result.notes)
    p = result.profiles[0]
    assert p.emission == "periodic" and p.cadence == 3600


def test_unparseable_dates_name_the_line(tmp_path):
    text = _series().replace("2026-01-01T02:00:00+00:00", "2026-01-01T25:99:00+00:00", 1)
    with pytest.raises(InferError, match=r"column 'ts' has 1 value\(s\) that are not dates \(line 4: "
                                         r"'2026-01-01T25:99:00\+00:00'\)"):
        infer([_csv(tmp_path, "u.csv", text)])


def test_one_row_per_entity_falls_back_to_a_dimension_table(tmp_path):
    text = "order_id,placed_at,amount\n" + "".join(f"O{i},2026-01-01T00:{i:02d}:00Z,{10 + i}\n" for i in range(30))
    result, report = infer([_csv(tmp_path, "orders.csv", text)])
    e = entity_for_table(result.spec, "orders")
    assert e.emission is None and e.count == 30 and [a.name for a in e.attributes] == ["amount"]
    assert any("one row per entity" in n for n in result.notes) and "one row per entity" in report


def test_very_high_cardinality_labels_are_not_modelled(tmp_path):
    rows = ["host_id,ts,request_id,cpu"]
    rows += [f"H{e},2026-01-01T{h:02d}:00:00Z,req-{e}-{h}-x,{40 + h % 5}" for e in range(4) for h in range(24)]
    result, _ = infer([_csv(tmp_path, "r.csv", "\n".join(rows) + "\n")])
    col = result.profiles[0].columns["request_id"]
    assert (col.role, col.kind) == ("skipped", "high-cardinality")
    assert "request_id" not in result.yaml_text.split("entities:")[1].replace("# ", "")
    assert parse_spec_text(result.yaml_text) == result.spec
    dims = "device_id,serial\n" + "".join(f"D{i},SN-{i * 7919 % 100003}\n" for i in range(300))
    result, _ = infer([_csv(tmp_path, "devices.csv", dims)])
    col = result.profiles[0].columns["serial"]
    assert (col.role, col.kind) == ("skipped", "high-cardinality") and result.spec.entities[0].attributes == []
    assert any("serial: 300 distinct labels (very high cardinality); not modelled" in n for n in result.notes)


def test_unsupported_and_missing_files(tmp_path):
    with pytest.raises(InferError, match=r"unsupported file type '\.xlsx'"):
        infer([_csv(tmp_path, "t.xlsx", "x")])
    with pytest.raises(InferError, match="file not found"):
        infer([tmp_path / "nope.csv"])
    with pytest.raises(InferError, match="nothing to infer from"):
        infer([])


def test_unix_epoch_and_zone_less_parquet_times(tmp_path):
    base = 1_767_225_600  # 2026-01-01T00:00:00Z
    frame = pd.DataFrame({"sensor_id": ["S1"] * 6 + ["S2"] * 6, "event_time": [base + 60 * k for k in range(6)] * 2,
                          "temp": [20.5, 21.0, 20.8, 21.2, 20.9, 21.1] * 2})
    frame.to_csv(tmp_path / "epoch.csv", index=False)
    result, _ = infer([tmp_path / "epoch.csv"])
    p = result.profiles[0]
    assert p.emission == "periodic" and p.cadence == 60 and result.spec.start == "2026-01-01T00:00:00Z"
    assert any("Unix times in s" in n for n in result.notes)
    naive = frame.assign(event_time=pd.to_datetime(frame.event_time, unit="s"))  # no zone in the Parquet
    naive.to_parquet(tmp_path / "naive.parquet")
    result, _ = infer([tmp_path / "naive.parquet"])
    assert result.profiles[0].cadence == 60 and any("no time zone; read as UTC" in n for n in result.notes)


def test_missing_values_are_reported(tmp_path):
    rows = ["host_id,ts,cpu"] + [f"H{e},2026-01-01T{h:02d}:00:00Z,{'' if h == 3 else 50 + h % 4}"
                                 for e in range(3) for h in range(12)]
    result, report = infer([_csv(tmp_path, "m.csv", "\n".join(rows) + "\n")])
    assert result.profiles[0].columns["cpu"].missing == pytest.approx(3 / 36)
    assert any("cpu: 8.3% of the values are missing" in n for n in result.notes) and "8.3%" in report


def test_semicolon_csv_and_daily_rows(tmp_path):
    rows = ["meter_id;day;kwh"] + [f"M{m};2026-01-{d:02d};{10 + m + d % 3}" for m in range(3) for d in range(1, 29)]
    result, _ = infer([_csv(tmp_path, "meters.csv", "\n".join(rows) + "\n")])
    p = result.profiles[0]
    assert p.keys == ["meter_id"] and p.emission == "periodic" and p.cadence == 86400
    kwh = entity_for_table(result.spec, "meters").measurements[0]
    assert kwh.seasonality == []  # one row a day cannot show a daily cycle


def test_irregular_events_without_a_state_column(tmp_path):
    import numpy as np

    rng = np.random.default_rng(5)
    rows = ["user_id,ts,amount"]
    for u in range(6):  # a Poisson process per user over the same three days
        t = np.cumsum(rng.exponential(3600, 200)).astype(int)
        t = t[t < 3 * 86400]
        rows += [f"U{u},{pd.Timestamp(1_767_225_600 + int(x), unit='s', tz='UTC').isoformat()},{rng.integers(1, 99)}"
                 for x in t]
    result, _ = infer([_csv(tmp_path, "payments.csv", "\n".join(rows) + "\n")])
    e = entity_for_table(result.spec, "payments")
    assert e.emission.kind == "on_transition" and e.arrival is None
    assert list(e.states.states) == ["active"] and e.states.transitions == {"active": {"active": 1.0}}
    assert e.states.states["active"].dwell.kind in ("exponential", "gamma")
    # the question-level rows compare answers (a 95th percentile of uniform integers fitted as a level with
    # noise is off by ~20% here); the column, cadence and length checks must all pass
    checks = [r for r in result.fidelity if not r.metric.startswith("question")]
    assert all(r.ok for r in checks), [(r.column, r.metric, r.value) for r in checks if not r.ok]
