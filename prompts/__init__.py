"""chronoeval prompts package."""
