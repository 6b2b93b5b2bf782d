"""What the spec says each bundle table holds: column roles, label maps, allowed transitions."""

from __future__ import annotations

from dataclasses import dataclass, field

from tools.common.durations import parse_duration
from tools.patterns.registry import get_kind
from tools.spec.distributions import ForeignKey
from tools.spec.entity import EntityType
from tools.spec.measurement import Measurement
from tools.spec.model import Spec

BASELINE = "baseline."
NULL_LABEL = "<null>"


@dataclass
class TableInfo:
    """One table of the bundle (``baseline.<t>`` for the world without incidents)."""

    name: str
    entity: EntityType
    kind: str                                   # static | periodic | events
    id_col: str
    ts_col: str | None = None
    strict_cols: list[str] = field(default_factory=list)       # must never be null
    measurements: list[Measurement] = field(default_factory=list)
    fks: list[tuple[str, str]] = field(default_factory=list)   # (column, parent entity type)
    labels: dict[str, dict[str, str | None]] = field(default_factory=dict)  # column -> state -> label
    key_parts: tuple[str, ...] = ()             # the other columns of a composite key (Interface_ID)

    @property
    def key(self) -> str:
        """The entity's id in SQL (a composite key's columns joined: ``RTR_001/eth2``)."""
        from tools.checks.model import key_sql

        return key_sql((self.id_col, *self.key_parts))

    @property
    def key_name(self) -> str:
        """The key's columns as a user reads them: ``Device_ID`` or ``Device_ID/Interface_ID``."""
        return "/".join((self.id_col, *self.key_parts))

    @property
    def base(self) -> str:
        return self.name[len(BASELINE):] if self.is_baseline else self.name

    @property
    def is_baseline(self) -> bool:
        return self.name.startswith(BASELINE)


def label_maps(e: EntityType) -> dict[str, dict[str, str | None]]:
    """Visible state columns: the state column itself and every derived column (state -> label)."""
    sm = e.states
    if sm is None:
        return {}
    out: dict[str, dict[str, str | None]] = {}
    if sm.column:
        out[sm.column] = {s: s for s in sm.states}
    for col, mapping in sm.derived_columns.items():
        out[col] = {s: mapping.get(s) for s in sm.states}
    return out


def table_infos(spec: Spec, present: set[str]) -> list[TableInfo]:
    """Every table the spec produces that is in the bundle, main schema first, then baseline."""
    infos: list[TableInfo] = []
    for prefix in ("", BASELINE):
        for e in spec.entities:
            static = e.static_table_name
            fks = [(a.name, a.dist.entity) for a in e.attributes if isinstance(a.dist, ForeignKey)]
            if static and prefix + static in present:
                cols = [a.name for a in e.attributes if a.in_static]
                infos.append(TableInfo(prefix + static, e, "static", e.id.column, None, [e.id.column, *cols],
                                       fks=[f for f in fks if f[0] in cols], key_parts=e.key_parts))
            if e.emission and prefix + e.table_name in present:
                em, sm = e.emission, e.states
                cols = [a.name for a in e.attributes if a.in_rows]
                labels = label_maps(e)
                strict = [e.id.column, em.timestamp_column, *cols]
                strict += [c for c, m in labels.items() if all(v is not None for v in m.values())]
                strict += list(sm.flags) if sm else []
                strict += [e.exemplar_column] if e.exemplar_column else []
                infos.append(TableInfo(prefix + e.table_name, e, "periodic" if em.kind == "periodic" else "events",
                                       e.id.column, em.timestamp_column, strict,
                                       [m for m in e.measurements if not m.hidden],
                                       [f for f in fks if f[0] in cols], labels, e.key_parts))
    return infos


def parent_table(spec: Spec, entity: str) -> tuple[str, str]:
    """Where the ids of ``entity`` live: its static table, else its main table (main schema)."""
    p = spec.entity(entity)
    return (p.static_table if p.emission and p.static_table else p.table_name), p.id.column


def allowed_state_pairs(spec: Spec, e: EntityType) -> set[tuple[str, str]]:
    """State pairs (a, b) that a trajectory may show consecutively: positive transition probabilities
    of the spec, its overrides, the entity's exemplars and behavior_shift incidents, and timeouts."""
    sm = e.states
    if sm is None:
        return set()
    rows: list[dict[str, dict[str, float]]] = [sm.transitions]
    rows += [o.transitions for o in sm.overrides]
    rows += [x.transitions for x in spec.exemplars if x.entity == e.name]
    for inc in spec.incidents:
        model = getattr(inc, "root", inc)
        if getattr(get_kind(model.kind), "shifts_behaviour", False) and model.target.entity == e.name:
            rows.append(model.transitions)
    pairs = {(a, b) for r in rows for a, row in r.items() for b, p in row.items() if p > 0}
    pairs |= {(a, t.to) for a, t in sm.timeouts.items()}
    return pairs


def initial_states(e: EntityType) -> set[str]:
    sm = e.states
    if sm is None:
        return set()
    return {sm.initial} if isinstance(sm.initial, str) else {s for s, w in sm.initial.items() if w > 0}


def epoch_starts_us(spec: Spec, e: EntityType) -> list[int]:
    """Absolute epoch starts of the type (a unit restarts there in its initial state)."""
    t0 = spec.start_dt.timestamp()
    return sorted({int(round((t0 + parse_duration(ep.start)) * 1e6)) for ep in spec.epochs
                   if ep.entity == e.name and parse_duration(ep.start) > 0})


def label(mapping: dict[str, str | None], state: str) -> str:
    v = mapping.get(state)
    return NULL_LABEL if v is None else v


def seasonal_periods(spec: Spec, e: EntityType) -> list[float]:
    """Seasonal periods (seconds) of the type's measurements and of its exemplars' patches."""
    out = {parse_duration(s.period) for m in e.measurements for s in m.seasonality}
    for x in spec.exemplars:
        if x.entity == e.name:
            out |= {parse_duration(s.period) for p in x.measurements.values() for s in (p.seasonality or [])}
    return sorted(out)


def has_trend(spec: Spec, e: EntityType) -> bool:
    if any(m.trend for m in e.measurements):
        return True
    return any(p.trend for x in spec.exemplars if x.entity == e.name for p in x.measurements.values())
