"""The registry of incident pattern kinds: one ``PatternKind`` per kind, keyed by its name.

Each kind is one module in ``tools/patterns/kinds/`` holding its parameter model, its injection
function and a ``KIND = PatternKind(...)`` entry that says everything the rest of chronoeval needs:
its signature direction, how a writer places it, the words users call it by, which check family
checks it and how a question names it. Everything that lists kinds (the spec's incident union,
``KINDS``, directions, the describe/chat word map, prompts, the checks and question dispatch)
derives from here.

Kinds are registered by ``register(module)``: ``tools.patterns.kinds`` discovers its modules and
registers each; a kind defined elsewhere (a test's toy kind, a plug-in) calls ``register`` the same
way, before the spec model is first built (``tools.patterns.model`` freezes the registry).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Literal, NamedTuple

import numpy as np

PatternFn = Callable[..., np.ndarray]
"""``fn(model, x, tau, span, amount, rng, ctx) -> new x`` for the affected rows of one key (see
``tools/patterns/library.py``)."""

Placement = Literal["effects", "keys", "rows", "arrivals", "other"]
EffectWay = Literal["worse", "down", "spread"]


class Words(NamedTuple):
    """What a question may call an incident's parts: the keys ("latency and jitter"), the entity
    noun ("session"), its plural ("sessions") and the shifted states ("checkout and payment")."""

    keys: str
    noun: str
    nouns: str
    states: str


def values_when_keyed(rec: dict) -> str:
    """The default check family: the value checks when the incident moved visible keys, else none."""
    return "values" if rec["keys"] else "none"


@dataclass(frozen=True)
class PatternKind:
    """One incident pattern kind.

    ``name``: the spec's ``kind``; ``model``: its parameter model (``kind: Literal[name]``);
    ``rank``: its place in every list, and the precedence of its ``words`` when a chat request names
    several kinds; ``summary``: one line for docs and prompts.

    Injection: ``inject`` rewrites the values of the affected rows (None for kinds that remove rows,
    change the simulation or add arrivals); ``amount_field`` names a relative-magnitude parameter used
    as the amount instead of ``effects`` (flash_crowd's ``surge``); ``needs_season`` asks for the
    spec's seasonal component in ``ctx``; ``removes_rows`` / ``shifts_behaviour`` / ``adds_arrivals``
    say the kind acts on rows, the state machine or arrivals (the generator reads these flags).

    Meaning: ``direction`` is the signature direction written in incidents.json (None: the sign of
    the effect, up or down); ``check`` picks the check family from the manifest record (``values``,
    ``missing_rows``, ``behavior``, ``arrivals`` or ``none``); ``check_last`` checks only the last
    1/N of the window (a drift is largest at its end); ``phrase`` names it in a question;
    ``extremes`` adds max/min measures (short spikes and dips show in them).

    Placement by writers (describe, chat, the spec writer's advice): ``placement`` says what a
    writer gives it (``effects`` on one key, ``keys``, nothing but ``rows``, a surge of
    ``arrivals``, or ``other``: it needs more than a key); ``placeable``: a writer may put it on any
    measurement of a reporter; ``effect_way``: which way its effect goes (the way that means worse,
    always down, or a spread); ``words``: a regex of what users call it; ``in_descriptions``: whether
    those words in a domain description ask for it (``noise`` in a description is the data's own).

    ``problems(inc, entity, path)``: spec-level problems of one incident beyond the shared ones
    (unknown keys and attributes), as ``(path, message)`` pairs.
    """

    name: str
    model: type
    summary: str
    rank: int = 1000
    inject: PatternFn | None = None
    amount_field: str | None = None
    needs_season: bool = False
    removes_rows: bool = False
    shifts_behaviour: bool = False
    adds_arrivals: bool = False
    direction: str | None = None
    check: Callable[[dict], str] = values_when_keyed
    check_last: int = 1
    phrase: Callable[[Words], str] = lambda w: "incident"
    extremes: bool = False
    placement: Placement = "other"
    placeable: bool = False
    effect_way: EffectWay = "worse"
    words: str | None = None
    in_descriptions: bool = True
    problems: Callable[..., list[tuple[str, str]]] | None = None
    source: str = field(default="", compare=False)


_KINDS: dict[str, PatternKind] = {}
_state = {"discovered": False, "frozen_by": None}


def register(module: ModuleType) -> PatternKind:
    """Register the kind a module declares as ``KIND`` (a ``PatternKind``); returns it.

    Raises ValueError when the module has no ``KIND``, the name is taken, or the spec model was
    already built (register plug-in kinds before importing ``tools.spec``)."""
    kind = getattr(module, "KIND", None)
    if not isinstance(kind, PatternKind):
        raise ValueError(f"{module.__name__}: a pattern kind module declares KIND = PatternKind(...)")
    if kind.name in _KINDS and _KINDS[kind.name].source != module.__name__:
        raise ValueError(f"{module.__name__}: pattern kind '{kind.name}' is already registered by "
                         f"{_KINDS[kind.name].source}")
    if _state["frozen_by"] and kind.name not in _KINDS:
        raise ValueError(f"{module.__name__}: register pattern kinds before {_state['frozen_by']} is built "
                         "(import and register the kind before tools.spec)")
    field_kind = getattr(kind.model, "model_fields", {}).get("kind")
    if field_kind is None or getattr(field_kind.annotation, "__args__", None) != (kind.name,):
        raise ValueError(f"{module.__name__}: {kind.model.__name__} needs kind: Literal['{kind.name}']")
    kind = replace(kind, source=module.__name__)
    _KINDS[kind.name] = kind
    return kind


def _discover() -> None:
    if not _state["discovered"]:
        _state["discovered"] = True
        from tools.patterns.kinds import register_builtin

        register_builtin()


def all_kinds() -> list[PatternKind]:
    """Every registered kind, in rank order (then by name)."""
    _discover()
    return sorted(_KINDS.values(), key=lambda k: (k.rank, k.name))


def kind_names() -> list[str]:
    """The names of every registered kind, in rank order."""
    return [k.name for k in all_kinds()]


def get_kind(name: str) -> PatternKind | None:
    """The registered kind called ``name`` (None for ``cascade`` or an unknown name)."""
    _discover()
    return _KINDS.get(name)


def freeze(by: str) -> list[PatternKind]:
    """Every kind, and no new ones after this (``by`` names what was built from the list)."""
    kinds = all_kinds()
    _state["frozen_by"] = _state["frozen_by"] or by
    return kinds
