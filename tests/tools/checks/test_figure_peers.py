"""Incident figures (issue 17): the 'unaffected peer' stays in the table's usual state over the
plotted range (it must not look affected by an episode of its own), and whole-number series get
integer axis ticks."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from knowledge.packs import load_pack
from tools.bundle.opened import open_bundle
from tools.checks.figures import HOUR, _series_panel, _steady
from tools.checks.model import in_list, iso_to_us, qi
from tools.generate import generate_bundle


@pytest.fixture(scope="module")
def iot(tmp_path_factory):
    out = tmp_path_factory.mktemp("fig") / "iot"
    generate_bundle(load_pack("iot"), out, scale=0.3, force=True)
    return out


def _panel(b, rec):
    start, end = iso_to_us(rec["start"]), iso_to_us(rec["end"])
    pad = max(end - start, 12 * HOUR)
    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    key = next(k for k in rec["keys"] if k in set(b.columns(rec["table"])))
    _series_panel(ax, b, rec, key, start - pad, end + pad)
    return ax, key, start - pad, end + pad


def test_the_unaffected_peer_stays_in_the_usual_state_over_the_plot(iot):
    b = open_bundle(iot, rowids=True)
    try:
        recs = [r for r in b.incidents if r["keys"] and r["kind"] != "data_outage"]
        assert recs
        checked = 0
        for rec in recs:
            ax, key, lo, hi = _panel(b, rec)
            peers = [line.get_label().split(" (")[0] for line in ax.get_lines() if "unaffected peer" in line.get_label()]
            assert len(peers) == 1, rec["id"]
            idc, ts, tab = qi(rec["id_column"]), qi(rec["timestamp_column"]), qi(rec["table"])
            states = {r[0] for r in b.sql(f"SELECT DISTINCT device_state FROM {tab} WHERE {idc} IN {in_list(peers)} "
                                          f"AND epoch_us({ts}) BETWEEN {lo} AND {hi}")}
            usual = b.one(f"SELECT device_state FROM {tab} GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")[0]
            steady = _steady(b, rec, [x for x in b.entities(rec["table"], rec["id_column"])
                                      if x not in rec["entities"]], lo, hi)
            if steady:  # when some peer stayed steady, the figure's peer is one of them
                assert states == {usual}, (rec["id"], peers, states)
                checked += 1
        assert checked
    finally:
        b.close()


def test_whole_number_series_get_integer_ticks(tmp_path):
    from tools.spec.io import spec_to_dict
    from tools.spec.model import Spec

    spec = spec_to_dict(load_pack("security"))
    for inc in spec["incidents"]:  # small counts: a default axis would tick at 0.5 steps
        if "failed_logins" in inc.get("effects", {}):
            inc["effects"] = {"failed_logins": 2}
    spec["incidents"] = [i for i in spec["incidents"] if "failed_logins" in i.get("effects", {})]
    generate_bundle(Spec.model_validate(spec), tmp_path / "sec", scale=0.3, force=True)
    b = open_bundle(tmp_path / "sec", rowids=True)
    try:
        whole = {m.name for e in b.spec.entities for m in e.measurements
                 if m.integer or m.noise.kind == "poisson" or m.decimals == 0}
        recs = [r for r in b.incidents if r["keys"] and r["keys"][0] in whole]
        assert recs  # the security pack's incidents move login and byte counts
        for rec in recs:
            ax, key, _, _ = _panel(b, rec)
            ticks = ax.get_yticks()
            assert key in whole and all(float(t).is_integer() for t in ticks), (rec["id"], ticks)
    finally:
        b.close()
