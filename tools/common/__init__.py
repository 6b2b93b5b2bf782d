"""The bottom layer of the deterministic core: primitives every other tools subpackage may use
(seeding, base models, durations). It imports no other tools subpackage."""
