"""incidents.json against the data: the signature sizes, the listed entities and the keys must be
what an analyst (or a check, or a gold query) finds when comparing with the baseline world."""

from __future__ import annotations

import numpy as np
import pytest

from ._helpers import WORLD, at, generate, inside, paired, spec_with, window_of

LOSS = "        base: 1.0\n        noise: {kind: iid, sigma: 0.1}\n"


@pytest.mark.parametrize(("incident", "key", "table", "id_col", "entity", "bounded"), [
    # cpu = 10 + 0.008 * ues: losing 10% of ~5000 UEs takes ~4 off cpu before the +5 is added
    pytest.param("""
    - kind: level_shift
      id: sig
      target: {entity: core, ids: [C1]}
      window: {start: "day 1 06:00", duration: 4h}
      effects: {ues: "-10%", cpu: 5}
    """, "cpu", "cores", "core_id", "C1", False, marks=pytest.mark.xfail(
        reason="known limitation: mean_delta of a key that is both injected and derived from another injected "
               "key of the same incident counts only its own injection (+5), not the data-vs-baseline change",
        strict=True)),
    # with bounds [0, 100] on loss (~1%), a -3 shift is clipped at 0: the data drops by ~1
    ("""
    - kind: level_shift
      id: sig
      target: {entity: link, ids: [L2]}
      window: {start: "day 1 06:00", duration: 4h}
      effects: {loss: -3}
    """, "loss", "links", "link_id", "L2", True),
], ids=["formula-dependant", "clipped"])
def test_manifest_mean_delta_is_what_the_data_shows(tmp_path, incident, key, table, id_col, entity, bounded):
    """BUG: signature.mean_delta is the delta the pattern function added, before bounds and before
    formula keys are recomputed from other injected keys, so it can disagree with the data (and
    with the baseline contrast a check or a question would compute)."""
    world = WORLD.replace(LOSS, LOSS + "        bounds: [0, 100]\n") if bounded else WORLD
    assert (world != WORLD) == bounded
    b = generate(spec_with(incident, world=world), tmp_path / "b")
    rec = b.incident("sig")
    df = paired(b, table, id_col)
    m = inside(df, id_col, [entity], *window_of(rec))
    observed = float(np.mean((df[key] - df[key + "_b"])[m]))
    assert rec["signature"][key]["mean_delta"] == pytest.approx(observed, abs=0.05), \
        f"manifest says {rec['signature'][key]['mean_delta']:.3f}, the data shows {observed:.3f}"


def test_behavior_shift_on_arrivals_lists_only_sessions_active_in_its_window(tmp_path):
    """BUG: the manifest lists every targeted session of the whole horizon (about 1,000 email
    sessions here; 9,024 free-plan sessions in the ecommerce pack, of which ~480 have a row in the
    window), so `incident_affected_count` style answers from incidents.json are wrong. Only sessions
    alive during the window can be affected."""
    b = generate(spec_with("""
    - kind: behavior_shift
      id: nobuy
      target: {entity: session, where: [{attribute: referrer, equals: email}]}
      window: {start: "day 1 06:00", duration: 12h}
      transitions:
        checkout: {exit: 1.0}
    """), tmp_path / "b")
    df = paired(b, "clicks", "session_id")
    alive = set(df.loc[(df.timestamp >= at("6h")) & (df.timestamp < at("18h")), "session_id"])
    listed = set(b.incident("nobuy")["entities"])
    assert listed <= alive, f"{len(listed - alive)} of {len(listed)} listed sessions have no row in the window"


def test_manifest_keys_are_columns_of_the_table(tmp_path):
    """BUG: an incident on a hidden measurement (a driver such as the telecom pack's `fail_ratio`)
    is accepted and injected, but incidents.json names the hidden key, which is not a column, and
    says nothing about the visible keys that moved (here `successes`, `failures`)."""
    world = WORLD.replace('      - name: successes\n        formula: "round(attempts * 0.95)"\n',
                          '      - name: ok_ratio\n        hidden: true\n        base: 0.95\n'
                          '      - name: successes\n        formula: "round(attempts * ok_ratio)"\n')
    assert world != WORLD
    b = generate(spec_with("""
    - kind: level_shift
      id: hid
      target: {entity: cell, ids: [CELL01]}
      window: {start: "day 1 06:00", duration: 2h}
      effects: {ok_ratio: -0.2}
    """, world=world), tmp_path / "b")
    df = paired(b, "cells", "cell_id")
    m = inside(df, "cell_id", ["CELL01"], at("6h"), at("8h"))
    assert ((df.successes - df.successes_b)[m] < 0).all(), "the hidden driver did move the visible keys"
    columns = set(b.table("cells").columns)
    keys = b.incident("hid")["keys"]
    assert set(keys) <= columns, f"incidents.json keys {keys} are not all columns of cells"
