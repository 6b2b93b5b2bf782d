"""`chronoeval paraphrase OUT [--personas a,b] [--per-question K]`: persona variants in qa.jsonl.

Appends variant records (``q0001.p1``, ``variant_of``, ``persona``) to the bundle's qa.jsonl,
idempotently (a re-run adds nothing), atomically (temp file + rename), and writes the "Paraphrases"
section of report.md (variants per persona, rejected variants with reasons, LLM notes and usage).
Offline by default; with ``CHRONOEVAL_MODEL`` set the LLM paraphrases and judges, and an unreachable
server is reported once while the command completes offline.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from graph.cli_base import app, errors, register_user_errors
from graph.console import out, print_error, print_ok
from tools.bundle.files import MANIFEST, QA


class ParaphraseInputError(ValueError):
    """A bad --personas value, a bundle without qa.jsonl, or a bad persona library (exit 2)."""


def _register() -> None:
    from agents.models import LLMConfigError

    register_user_errors(ParaphraseInputError, LLMConfigError)


def choose_personas(spec: str | None, domain: str | None):
    """The personas to use: the named ones (in that order) or the library's, domain-typical first."""
    from knowledge.personas import load_personas
    from tools.paraphrase.personas import personas_for

    library = load_personas()
    if not spec:
        return personas_for(domain, library)
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in library]
    if unknown or not names:
        raise ParaphraseInputError(f"--personas: unknown persona(s) {', '.join(unknown) or '(none given)'}; "
                                   f"choose from {', '.join(library)} (knowledge/personas.yaml)")
    return [library[n] for n in names]


@app.command()
def paraphrase(
    bundle: Annotated[Path, typer.Argument(metavar="OUT", help="A bundle with qa.jsonl (`chronoeval queries`).")],
    personas: Annotated[str | None, typer.Option("--personas", help="Comma-separated persona names "
                                                 "(default: all of knowledge/personas.yaml).")] = None,
    per_question: Annotated[int, typer.Option("--per-question", "-k", min=1, max=10,
                                              help="Variants per canonical question.")] = 3,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the deterministic paraphraser.")] = 0,
) -> None:
    """Add persona paraphrases of every canonical question to qa.jsonl (judged: same slots, same query)."""
    _register()
    with errors():
        from agents.models import get_chat_model, reset_usage
        from agents.paraphraser import paraphrase_bundle
        from graph.cli_verify import bundle_writer
        from graph.console import RichProgress

        qa = bundle / QA
        if not qa.is_file():
            raise ParaphraseInputError(f"{qa} not found: {bundle} is not a bundle with questions; run "
                                       f"`chronoeval queries {bundle}` first")
        domain = None
        try:
            domain = json.loads((bundle / MANIFEST).read_text()).get("spec")
        except (OSError, ValueError):
            pass
        chosen = choose_personas(personas, domain if isinstance(domain, str) else None)
        reset_usage()
        model = get_chat_model()
        with bundle_writer(bundle), RichProgress() as progress:
            tick = progress.counter("paraphrasing questions")
            rep = paraphrase_bundle(bundle, chosen, per_question, seed=seed, model=model, progress=tick)
        for note in rep.notes:
            if "cannot reach the LLM" in note:
                print_error(note, prefix="warning: ")
        if rep.shortfall:
            print_error(f"{len(rep.shortfall)} question(s) got fewer than {per_question} variants; report.md "
                        "lists them", prefix="warning: ")
        if rep.usage:
            out.print(f"LLM: {rep.usage}", soft_wrap=True)
        print_ok(f"{len(rep.added)} variant(s) added ({rep.total_variants} in total, {len(rep.rejected)} rejected) → {qa}; "
                 "see report.md (Paraphrases)")
