"""Read sample tables (CSV or Parquet, one file per table) and find and parse their time column."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from tools.infer.errors import InferError

_TIME_NAME = re.compile(r"(^|_)(time|timestamp|ts|date|datetime|at)$|time|timestamp", re.IGNORECASE)
_ISO_LIKE = re.compile(r"^\s*\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?\s*$")
_ZONE = re.compile(r"(?:Z|[+-]\d{2}:?\d{2})\s*$")
_TIME_ONLY = re.compile(r"\d{2}:\d{2}")


@dataclass
class TimeInfo:
    """The table's time column: how its values were written and what parsing did."""

    column: str
    fmt: str
    zones: list[str]
    notes: list[str] = field(default_factory=list)


@dataclass
class Table:
    """One sample table: its name, source file and rows (time column parsed to UTC when found)."""

    name: str
    path: str
    frame: pd.DataFrame
    time: TimeInfo | None
    notes: list[str] = field(default_factory=list)

    @property
    def rows(self) -> int:
        """Number of rows (after dropping rows without a time)."""
        return len(self.frame)

    def line(self, index: int) -> str:
        """Where row ``index`` is in the source file (CSV lines count the header as line 1)."""
        return f"line {index + 2}" if self.path.lower().endswith((".csv", ".tsv", ".txt")) else f"row {index + 1}"


def table_name(path: str | Path) -> str:
    """The table name of a file: its stem as a lowercase identifier (``Cell Sites.csv`` -> ``cell_sites``)."""
    stem = re.sub(r"[^0-9a-zA-Z_]+", "_", Path(path).name.split(".")[0]).strip("_").lower()
    return stem if stem and not stem[0].isdigit() else f"t_{stem}"


def _delimiter(path: Path) -> str:
    """The separator of a delimited text file, from its header line (``,`` unless ``;``, tab or ``|``
    clearly dominate, as in European CSV exports)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        header = f.readline()
    counts = {sep: header.count(sep) for sep in (",", ";", "\t", "|")}
    best = max(counts, key=counts.get)
    return best if counts[best] > counts[","] else ","


def read_frame(path: str | Path) -> pd.DataFrame:
    """A file as a DataFrame; InferError for a missing, empty, unreadable or unsupported file."""
    p = Path(path)
    if p.is_dir() and (parts := sorted(p.glob("part-*.parquet"))):  # a partitioned table (--engine dask)
        try:
            frame = pd.concat([pd.read_parquet(x) for x in parts], ignore_index=True)
        except (ValueError, OSError) as exc:
            raise InferError(str(p), f"cannot be read as a table ({str(exc).splitlines()[0]}); check the parts") from None
        frame.columns = identifier_columns([str(c).strip() for c in frame.columns])
        return frame
    if not p.is_file():
        raise InferError(str(p), "file not found; give CSV or Parquet files, one per table")
    suffix = p.suffix.lower()
    if p.stat().st_size == 0:
        raise InferError(str(p), "the file is empty; export the table with a header row and at least one data row")
    try:
        if suffix == ".parquet" or suffix == ".pq":
            frame = pd.read_parquet(p)
        elif suffix in (".csv", ".txt", ".tsv"):
            frame = pd.read_csv(p, sep="\t" if suffix == ".tsv" else _delimiter(p), low_memory=False)
        else:
            raise InferError(str(p), f"unsupported file type '{suffix}'; give .csv, .tsv or .parquet files")
    except InferError:
        raise
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, OSError) as exc:
        raise InferError(str(p), f"cannot be read as a table ({str(exc).splitlines()[0]}); check the format") from None
    except pd.errors.EmptyDataError:
        raise InferError(str(p), "the file is empty; export the table with a header row and data rows") from None
    if frame.empty:
        raise InferError(str(p), "has a header but no data rows; inference needs sample rows (or use --ddl)")
    frame.columns = identifier_columns([str(c).strip() for c in frame.columns])
    return frame


def identifier(name: str) -> str:
    """One name as a spec identifier: runs of other characters become ``_``, a leading digit gets ``c_``."""
    base = re.sub(r"\W+", "_", name).strip("_") or "column"
    base = f"c_{base}" if base[0].isdigit() else base
    return base.encode()[:60].decode(errors="ignore")


def identifier_columns(names: list[str]) -> list[str]:
    """Column names as spec identifiers (``Humidity %`` -> ``Humidity``, ``2nd`` -> ``c_2nd``), unique
    ignoring case: spec names become SQL identifiers, so the inferred spec names its columns this way."""
    out: list[str] = []
    for name in names:
        base = identifier(name)
        new, k = base, 2
        while new.lower() in {o.lower() for o in out}:
            new, k = f"{base}_{k}", k + 1
        out.append(new)
    return out


def _looks_like_time(series: pd.Series, name: str) -> bool:
    if isinstance(series.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_any_dtype(series):
        return True
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        return bool(_TIME_NAME.search(name)) and _epoch_unit(series) is not None
    if not (pd.api.types.is_string_dtype(series) or series.dtype == object):
        return False
    sample = series.dropna().astype(str).unique()[:50]
    if len(sample) == 0:
        return False
    iso = np.mean([bool(_ISO_LIKE.match(v)) for v in sample])
    named = bool(_TIME_NAME.search(name))  # a time-like name: parse it, so bad values are reported, not ignored
    return iso >= 0.9 or (named and (iso >= 0.5 or np.mean([bool(_TIME_ONLY.search(v)) for v in sample]) > 0.5))


def _epoch_unit(series: pd.Series) -> str | None:
    """'s', 'ms' or 'us' when the numbers are Unix times between 2000 and 2100 in that unit."""
    v = series.dropna()
    if v.empty:
        return None
    lo, hi = float(v.min()), float(v.max())
    for unit, scale in (("s", 1), ("ms", 1e3), ("us", 1e6)):
        if 946_684_800 * scale <= lo and hi <= 4_102_444_800 * scale:
            return unit
    return None


def time_candidates(frame: pd.DataFrame) -> list[str]:
    """Columns that hold timestamps, best first (a time-like name, then the most distinct values)."""
    cands = [c for c in frame.columns if _looks_like_time(frame[c], c)]
    return sorted(cands, key=lambda c: (not _TIME_NAME.search(c), -frame[c].nunique()))


def parse_time(table_path: str, frame: pd.DataFrame, column: str, line) -> tuple[pd.Series, TimeInfo]:
    """Parse ``column`` to UTC timestamps. Mixed UTC offsets are converted (noted); values without a
    zone are read as UTC (noted); a mix of zoned and zone-less values or an unparseable value is an
    InferError naming the line."""
    s = frame[column]
    notes: list[str] = []
    if isinstance(s.dtype, pd.DatetimeTZDtype):
        return s.dt.tz_convert("UTC"), TimeInfo(column, "datetime", [str(s.dt.tz)])
    if pd.api.types.is_datetime64_any_dtype(s):
        notes.append(f"'{column}' has no time zone; read as UTC")
        return s.dt.tz_localize("UTC"), TimeInfo(column, "datetime", ["none (UTC assumed)"], notes)
    if pd.api.types.is_numeric_dtype(s):
        unit = _epoch_unit(s)
        notes.append(f"'{column}' holds Unix times in {unit}; read as UTC")
        return pd.to_datetime(s, unit=unit, utc=True), TimeInfo(column, f"Unix epoch ({unit})", ["UTC"], notes)
    codes, uniques = pd.factorize(s.astype("string"), use_na_sentinel=True)
    text = pd.Series(np.asarray(uniques, dtype=object), dtype=object).astype(str).str.strip()
    parsed = pd.to_datetime(text, errors="coerce", utc=True, format="ISO8601")
    if parsed.isna().any():
        parsed = parsed.fillna(pd.to_datetime(text[parsed.isna()], errors="coerce", utc=True, format="mixed"))
    if parsed.isna().any():
        i = int(np.flatnonzero(parsed.isna().to_numpy())[0])
        row = int(np.flatnonzero(codes == i)[0])
        n_bad = int(np.isin(codes, np.flatnonzero(parsed.isna().to_numpy())).sum())
        raise InferError(table_path, f"column '{column}' has {n_bad} value(s) that are not dates ({line(row)}: "
                         f"'{text.iloc[i]}'); fix them or drop those rows (ISO-8601 such as "
                         "'2026-01-01T00:15:00+00:00' is expected)")
    zoned = text.str.contains(_ZONE)
    if zoned.any() and not zoned.all():
        bad = text[~zoned].iloc[0]
        row = int(np.flatnonzero(codes == int(np.flatnonzero(~zoned.to_numpy())[0]))[0])
        raise InferError(table_path, f"column '{column}' mixes timestamps with and without a time zone "
                         f"({line(row)}: '{bad}'); write every value with its zone (e.g. '+00:00' or 'Z')")
    zones = sorted(set(text.str.extract(r"(Z|[+-]\d{2}:?\d{2})\s*$", expand=False).dropna().str.replace("Z", "+00:00")))
    if not zoned.any():
        notes.append(f"'{column}' has no time zone; read as UTC")
        zones = ["none (UTC assumed)"]
    elif len(zones) > 1:
        notes.append(f"'{column}' mixes UTC offsets ({', '.join(zones)}); all converted to UTC")
    values = pd.Series(pd.DatetimeIndex(parsed).take(np.where(codes < 0, 0, codes)), index=frame.index)
    values[codes < 0] = pd.NaT
    fmt = "ISO-8601 date" if text.str.len().max() <= 10 else "ISO-8601"
    return values, TimeInfo(column, fmt, zones, notes)


def load_table(path: str | Path, name: str | None = None) -> Table:
    """Read one table and parse its time column (rows without a time are dropped, with a note)."""
    frame = read_frame(path)
    table = Table(name or table_name(path), str(path), frame, None)
    cands = time_candidates(frame)
    if not cands:
        return table
    values, info = parse_time(str(path), frame, cands[0], table.line)
    for other in cands[1:]:
        info.notes.append(f"'{other}' also holds timestamps; it is not modelled (spec attributes are not times)")
    missing = values.isna()
    frame = frame.assign(**{cands[0]: values})
    if missing.any():
        info.notes.append(f"{int(missing.sum())} row(s) without a '{cands[0]}' value dropped")
        frame = frame[~missing.to_numpy()].reset_index(drop=True)
    table.frame = frame.drop(columns=cands[1:])
    table.time = info
    return table
