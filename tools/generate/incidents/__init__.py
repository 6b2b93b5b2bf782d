"""Applying a spec's incidents to a generated world: resolution of targets, windows and cascades
against the populations (``resolve``), injection while a shard is generated (``inject``) and the
ground-truth manifest incidents.json (``manifest``).

This lives inside ``tools.generate`` rather than beside it: the generator calls the injector in
the middle of every shard and the resolver needs the generator's populations, so a separate
package would import ``tools.generate`` and be imported by it (a cycle). The pattern kinds
themselves (models and pure functions) are below the spec, in ``tools.patterns``.
"""
