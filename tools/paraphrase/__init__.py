"""Deterministic paraphrasing (the offline default): persona library, phrase banks, slot check and
token edit distance. Pure and seeded; no LLM."""

from tools.paraphrase.distance import token_edit_distance, tokens
from tools.paraphrase.engine import MIN_DISTANCE, Paraphrases, Variant, paraphrase
from tools.paraphrase.personas import Persona, read_personas
from tools.paraphrase.slots import extract_slots, slot_problems

__all__ = ["MIN_DISTANCE", "Paraphrases", "Persona", "Variant", "extract_slots", "paraphrase", "read_personas",
           "slot_problems", "token_edit_distance", "tokens"]
