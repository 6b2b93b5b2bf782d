"""chronoeval agents package."""
