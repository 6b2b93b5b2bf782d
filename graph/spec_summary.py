"""What the spec commands (packs, validate, generate) say about a spec: its tables, and notes on
categorical weights that are relative rather than probabilities."""

from __future__ import annotations


def spec_tables(spec) -> list[str]:
    """The tables a spec produces, in declaration order (the generator's naming rules)."""
    return [t for e in spec.entities for t in e.table_names]


def weight_notes(spec) -> list[str]:
    """Categorical attributes whose weights do not sum to 1: they are relative weights (unlike
    transition probabilities, which must sum to 1), so say what shares they give."""
    out = []
    for i, e in enumerate(spec.entities):
        for j, a in enumerate(e.attributes):
            dist = getattr(a, "dist", None)
            if getattr(dist, "kind", None) != "categorical":
                continue
            total = sum(dist.values.values())
            if abs(total - 1) > 1e-9:
                shares = ", ".join(f"{k} {w / total:.1%}" for k, w in dist.values.items())
                out.append(f"entities[{i}].attributes[{j}] ({a.name}): categorical weights sum to {total:g}; "
                           f"they are relative weights, so the shares are {shares}")
    return out
