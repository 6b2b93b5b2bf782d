"""Chat operations and their reading (deterministic; see ops.py)."""
