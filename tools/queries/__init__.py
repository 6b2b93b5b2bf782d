"""Data-aligned question suites: QuerySpec, templates, two executors, synthesis, rendering."""
