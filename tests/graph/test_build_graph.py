"""The supervisor graph offline: routing order, the decision log, the iteration cap, the LLM path
with a fake chat model (and its guard), and descriptions building bundles whose stated counts,
cadences and horizons hold in the data."""

from __future__ import annotations

import json

import duckdb
import pytest

from agents.context import BuildContext
from graph.builder import RECURSION_LIMIT, build_graph
from tests.agents.fake_chat import FakeChatModel
from tests.tools.describe.cases import CASES

WIND = CASES[0][0]


def _run(request: str, out, **ctx):
    g = build_graph()
    return g.invoke({"request": request, "out": str(out), "stale": []}, {"recursion_limit": RECURSION_LIMIT},
                    context=BuildContext(auto_approve=True, **ctx))


def _routes(state) -> list[str]:
    return [d["decision"][2:] for d in state["decisions"] if d["agent"] == "supervisor" and d["decision"].startswith("→")]


def test_offline_routing_order_and_decision_log(tmp_path):
    state = _run(WIND, tmp_path / "wind", n_questions=20)
    assert _routes(state) == ["schema_inference", "spec_writer", "pattern_injector", "query_synthesizer",
                              "paraphraser", "finish"]
    assert state["finished"] and not state.get("error") and state["questions"] == 20
    qa = [json.loads(x) for x in (tmp_path / "wind" / "qa.jsonl").read_text().splitlines()]
    # two persona variants per question, at most 10% short (a short natural question may have fewer
    # distinct rewrites: the paraphrase engine's contract)
    assert 0.9 * 2 * 20 <= len([r for r in qa if r["variant_of"]]) <= 2 * 20
    report = (tmp_path / "wind" / "report.md").read_text()
    assert "## Build decisions" in report and "from: 40 turbines" in report and "→ pattern_injector" in report
    from tools.bundle.integrity import sha256_file

    manifest = json.loads((tmp_path / "wind" / "manifest.json").read_text())
    assert manifest["files"]["report.md"] == sha256_file(tmp_path / "wind" / "report.md")


def test_iteration_cap_stops_a_supervisor_that_never_finishes(tmp_path):
    state = _run(WIND, tmp_path / "capped", max_iterations=2)
    assert _routes(state) == ["schema_inference", "spec_writer"]
    assert "iteration cap" in state["error"] and state["finished"]
    assert not (tmp_path / "capped").exists()  # stopped before generating anything


def _draft_reply() -> dict:
    return {"name": "wind_farm", "description": WIND,
            "entity": {"name": "turbine", "plural": "turbines", "count": 12, "states": ["normal", "fault"],
                       "measurements": [{"name": "power_output", "words": "power output"}], "cadence": "10m"},
            "horizon": "2d", "evidence": {"count": "12 turbines"}}


class AgentFake(FakeChatModel):
    """Routes come from ``replies`` in order; each agent's structured answer is chosen by its prompt:
    the schema draft, measurement advice (first invalid, then fixed), an incident plan, a template
    focus; paraphrases fail the judge so the deterministic paraphraser fills in."""

    answers: dict = {}

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        system = str(messages[0].content)
        for marker, reply in self.answers.items():
            if marker in system:
                self.replies.insert(0, reply.pop(0) if isinstance(reply, list) else reply)
                break
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_llm_path_drives_the_supervisor_and_every_agent(tmp_path):
    bad = {"measurements": [{"name": "power_output", "unit": "kW", "typical": 2000, "low": 3000, "high": 100}]}
    good = {"measurements": [{"name": "power_output", "unit": "kW", "typical": 2000, "low": 0, "high": 3500}]}
    model = AgentFake(replies=[
        {"next": "query_synthesizer", "reason": "jump ahead"},   # guard: no data yet → planner decides
        {"next": "spec_writer", "reason": "draft exists"},
        {"next": "pattern_injector", "reason": "approved"},
        {"next": "query_synthesizer", "reason": "data ready"},
        {"next": "finish", "reason": "all done"},                # guard: paraphrases missing → planner
        {"next": "finish", "reason": "all done"},
    ], calls=[], answers={
        "draft the data it": _draft_reply(),
        "simulate realistic telemetry": [bad, good],
        "Choose 2 to 4 realistic incidents": {"incidents": [
            {"kind": "flatline", "key": "power_output", "entities": 2, "day": 2, "start_hour": 6, "hours": 6},
            {"kind": "data_outage", "entities": 3, "day": 1, "start_hour": 15, "hours": 2}]},
        "Pick up to 6 question templates": {"prefer": ["state_duration"], "reason": "operators ask for downtime"},
        "rewrite a question": {"variants": ["something else entirely"]},
    })
    state = _run(WIND, tmp_path / "llm", model=model, n_questions=12)
    assert _routes(state) == ["schema_inference", "spec_writer", "pattern_injector", "query_synthesizer",
                              "paraphraser", "finish"]
    said = [d["decision"] for d in state["decisions"]]
    reasons = [d["reason"] for d in state["decisions"] if d["agent"] == "supervisor"]
    assert "lacks its prerequisites" in reasons[0] and reasons[1] == "LLM: draft exists"
    # the LLM's draft leaves out what the text names (vibration, rotor speed): sent back once, then the
    # offline reading stands (the LLM can add to the rules' reading, never take from it)
    assert "the offline reading stands" in said
    drafts = [c for c in model.calls if "draft the data it" in str(c[0].content)]
    assert len(drafts) == 2 and "include it as a measurement" in str(drafts[1][-1].content)
    assert "measurement levels from the LLM: power_output ~2000 kW" in said
    retried = [c for c in model.calls if "simulate realistic telemetry" in str(c[0].content)]
    assert len(retried) == 2 and "bounds" in str(retried[1][-1].content)  # the validation error went back
    assert "incident plan from the LLM: flatline, data_outage" in said
    assert "templates favoured: state_duration" in said
    from tools.spec.io import load_spec

    spec = load_spec(tmp_path / "llm" / "spec.yaml")
    m = next(x for x in spec.entities[0].measurements if x.name == "power_output")
    assert (m.name, m.base, m.unit, m.bounds) == ("power_output", 2000.0, "kW", (0.0, 3500.0))
    incs = json.loads((tmp_path / "llm" / "incidents.json").read_text())["incidents"]
    assert sorted(i["kind"] for i in incs) == ["data_outage", "flatline"]
    con = duckdb.connect(str(tmp_path / "llm" / "data.duckdb"), read_only=True)
    assert con.execute("SELECT count(DISTINCT turbine_id) FROM turbine_metrics").fetchone()[0] == 40  # as the text says
    assert model.replies == []  # every scripted route was used: each step really asked the model


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c[1] for c in CASES])
def test_descriptions_build_bundles_whose_stated_numbers_hold(case, tmp_path):
    text, entity, count, cadence, horizon, measurements, states = case
    state = _run(text, tmp_path / "b", n_questions=12)
    assert state["finished"] and not state.get("error") and state["questions"] >= 9
    out = tmp_path / "b"
    spec_table = next(t for t in json.loads((out / "manifest.json").read_text())["tables"] if t.endswith("_metrics"))
    con = duckdb.connect(str(out / "data.duckdb"), read_only=True)
    ids = con.execute(f"SELECT count(DISTINCT {entity}_id) FROM {spec_table}").fetchone()[0]
    cols = [r[0] for r in con.execute(f"DESCRIBE {spec_table}").fetchall()]
    assert set(measurements) <= set(cols) and "status" in cols
    if count:
        assert ids == count
    if states:
        seen = {r[0] for r in con.execute(f"SELECT DISTINCT status FROM {spec_table}").fetchall()}
        assert seen <= set(states) and len(seen) >= 2
    step, span = con.execute(
        f"WITH d AS (SELECT epoch(timestamp) - lag(epoch(timestamp)) OVER (PARTITION BY {entity}_id ORDER BY timestamp) "
        f"AS gap FROM {spec_table}) SELECT (SELECT min(gap) FROM d), "
        f"(SELECT epoch(max(timestamp)) - epoch(min(timestamp)) FROM {spec_table})").fetchone()
    from tools.common.durations import parse_duration

    if cadence:
        assert step == parse_duration(cadence)
    want = parse_duration(horizon or "7d")
    assert want - parse_duration(cadence or "15m") - 3600 <= span <= want


def test_memory_retrieval_notes_and_failure_bias(tmp_path):
    from knowledge.documents import ExperienceNote
    from knowledge.embed import HashEmbedder
    from knowledge.memory import Memory

    mem = Memory(tmp_path / "mem", embedder=HashEmbedder())
    mem.remember(ExperienceNote(kind="agent_failure", text="agent X failed 7/8 state_duration questions by "
                                                           "measuring episodes inside the window only"))
    state = _run(WIND + " over 2 days", tmp_path / "mem-build", n_questions=12, memory=mem, use_notes=True)
    said = {d["decision"] for d in state["decisions"]}
    assert any(d.startswith("retrieved from memory: pack ") for d in said)
    assert "templates favoured: state_duration" in said
    assert any(d.startswith("experience notes used (--use-notes): 1 note(s), digest ") for d in said)
    assert json.loads((tmp_path / "mem-build" / "manifest.json").read_text())["notes_used"]["templates"] == [
        "state_duration"]
    plain = _run(WIND + " over 2 days", tmp_path / "plain-build", n_questions=12,
                 memory=Memory(tmp_path / "mem2", embedder=HashEmbedder()))
    assert not any(d["decision"].startswith("templates favoured") for d in plain["decisions"])

    def n_state_duration(out):
        qa = [json.loads(x) for x in (out / "qa.jsonl").read_text().splitlines()]
        return sum(r["template"] == "state_duration" for r in qa if not r["variant_of"])

    assert n_state_duration(tmp_path / "mem-build") >= 2 > n_state_duration(tmp_path / "plain-build")
    lessons = [n for n in mem.notes(kind="generation_lesson")] + [n for n in mem.notes(kind="user_preference")]
    assert all(str(tmp_path / "mem-build") == n.source for n in lessons)


def test_build_from_ddl_uses_the_fitted_spec(tmp_path):
    ddl = tmp_path / "schema.sql"
    ddl.write_text("CREATE TABLE links (device_id VARCHAR PRIMARY KEY, vendor TEXT);\n"
                   "CREATE TABLE link_metrics (device_id VARCHAR REFERENCES links(device_id), ts TIMESTAMP NOT NULL, "
                   "latency_ms DOUBLE, loss_pct DOUBLE, PRIMARY KEY (device_id, ts));\n")
    g = build_graph()
    state = g.invoke({"request": "router links", "ddl": str(ddl), "samples": [], "out": str(tmp_path / "ddl"),
                      "stale": []}, {"recursion_limit": RECURSION_LIMIT},
                     context=BuildContext(auto_approve=True, n_questions=12))
    assert state["finished"] and not state.get("error")
    said = [d["decision"] for d in state["decisions"]]
    assert "spec fitted from schema.sql" in said and "spec = the one fitted from the sample files / DDL" in said
    con = duckdb.connect(str(tmp_path / "ddl" / "data.duckdb"), read_only=True)
    cols = {r[0] for r in con.execute("DESCRIBE link_metrics").fetchall()}
    assert {"device_id", "ts", "latency_ms", "loss_pct"} <= cols
