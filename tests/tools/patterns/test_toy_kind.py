"""A pattern kind is one file: a toy kind defined in tests/tools/patterns/toy_kinds/toy_plateau.py
and registered with ``tools.patterns.registry.register`` (as the built-in kinds are) goes through
spec → generate → check → incident questions answered by both executors, and every list of kinds
(the spec's union, KINDS, the describe/chat words, the writer's placeable kinds, the prompts) has it.

It runs in a fresh interpreter: a plug-in kind is registered before the spec model is built."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TOY = Path(__file__).with_name("toy_kinds") / "toy_plateau.py"

SPEC = """
name: toy_world
seed: 5
start: "2026-01-01T00:00:00Z"
horizon: 3d
entities:
  - name: sensor
    table: readings
    id: {column: sensor_id, format: "S{i:02d}"}
    count: 12
    emission: {kind: periodic, cadence: 15m}
    measurements:
      - name: temperature
        base: 20
        noise: {kind: ar, phi: [0.6], sigma: 0.5}
        decimals: 3
incidents:
  - kind: toy_plateau
    id: warm_plateau
    target: {entity: sensor, random: 3}
    window: {start: "day 2 06:00", duration: 6h}
    effects: {temperature: 8sigma}
"""

SCRIPT = """
import importlib.util, json, sys
from pathlib import Path

from tools.patterns.registry import register

loader = importlib.util.spec_from_file_location("toy_plateau", sys.argv[1])
module = importlib.util.module_from_spec(loader)
loader.loader.exec_module(module)
register(module)  # the same call that registers every module of tools/patterns/kinds

from agents.schema_inference import PLACEABLE
from prompts.schema_inference import SCHEMA_INFERENCE
from tools.checks.run import run_checks
from tools.describe.extract import find_incidents
from tools.chat.reader import read_request
from tools.generate import generate_bundle
from tools.patterns.model import KINDS
from tools.queries.context import open_context
from tools.queries.evaluate import evaluate
from tools.queries.registry import load_templates
from tools.spec import parse_spec_text

out = Path(sys.argv[2])
spec = parse_spec_text(Path(sys.argv[3]).read_text())
generate_bundle(spec, out, force=True, with_baseline=True)
checks = [c.model_dump() for c in run_checks(out) if c.incident]
templates = load_templates()
ctx = open_context(out, seed=1)
try:
    outcomes = [(name, evaluate(t, c, ctx)) for name, t in templates.items() if t.family == "incident"
                for c in t.candidates(ctx)]
finally:
    ctx.close()
print(json.dumps({
    "kinds": KINDS, "placeable": list(PLACEABLE), "prompt": SCHEMA_INFERENCE.instruction,
    "described": [k for k, _w in find_incidents("readings show a plateau in the temperature")],
    "chat": [op.kind for op in read_request("add a plateau on day 2 at 10:00", spec).ops],
    "manifest": json.loads((out / "incidents.json").read_text())["incidents"],
    "checks": checks,
    "questions": [{"template": n, "kept": o.kept, "disagree": bool(o.disagreement), "text": o.question,
                   "incident": o.candidate.incident_id} for n, o in outcomes],
}))
"""


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("toy")
    (tmp / "spec.yaml").write_text(SPEC)
    res = subprocess.run([sys.executable, "-c", SCRIPT, str(TOY), str(tmp / "bundle"), str(tmp / "spec.yaml")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_every_list_of_kinds_has_the_toy(toy):
    assert "toy_plateau" in toy["kinds"] and "toy_plateau" in toy["placeable"]
    assert "toy_plateau" in toy["prompt"]
    assert "toy_plateau" in toy["described"] and toy["chat"] == ["toy_plateau"]


def test_the_toy_is_injected_and_checked(toy):
    (rec,) = toy["manifest"]
    assert rec["kind"] == "toy_plateau" and rec["signature"]["temperature"]["direction"] == "up"
    assert rec["signature"]["temperature"]["mean_delta"] > 3  # 8 sigma of an AR(0.6) with sigma 0.5 ≈ 5
    names = {c["name"]: c["passed"] for c in toy["checks"]}
    assert names == {"detectable": True, "localized": True}, toy["checks"]


def test_incident_questions_about_the_toy_agree_on_both_executors(toy):
    kept = [q for q in toy["questions"] if q["kept"] and q["incident"] == "warm_plateau"]
    assert kept and not any(q["disagree"] for q in toy["questions"])
    assert any("plateau in temperature" in q["text"] for q in kept)


def test_registering_after_the_spec_model_is_built_is_a_clear_error():
    code = ("import importlib.util, sys\nimport tools.spec.model\nfrom tools.patterns.registry import register\n"
            "s = importlib.util.spec_from_file_location('toy_plateau', sys.argv[1])\n"
            "m = importlib.util.module_from_spec(s); s.loader.exec_module(m)\nregister(m)\n")
    res = subprocess.run([sys.executable, "-c", code, str(TOY)], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode != 0 and "register pattern kinds before" in res.stderr
