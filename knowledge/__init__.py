"""chronoeval knowledge package."""
