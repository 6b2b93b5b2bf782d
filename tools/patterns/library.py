"""What the value-level pattern functions share (each kind's function is in its own module under
``tools/patterns/kinds``, registered in ``tools/patterns/registry.py``).

Each function gets the affected rows of one key inside the window and returns their new values:
``x`` the values, ``tau`` seconds since the window start, ``span`` the window length, ``amount``
the magnitude in units of the key for each row (resolved from the entity's own baseline), ``ctx``
per-row extras (``first``: index of each row's first in-window row, ``mean``/``std``: the entity's
baseline, ``season``: the spec's seasonal component at each row and at the shifted time).
Overlapping anomalies are never silently overwritten: composition is explicit (see tools/generate/incidents/resolve.py).
"""

from __future__ import annotations

import numpy as np


def trapezoid(tau: np.ndarray, span: float, ramp_in: float, ramp_out: float) -> np.ndarray:
    """0 → 1 over ``ramp_in``, 1, then 1 → 0 over ``ramp_out`` before the window's end."""
    env = np.ones_like(tau, dtype=float)
    if ramp_in > 0:
        env = np.minimum(env, (tau + 1) / ramp_in)
    if ramp_out > 0:
        env = np.minimum(env, (span - tau) / ramp_out)
    return np.clip(env, 0.0, 1.0)
