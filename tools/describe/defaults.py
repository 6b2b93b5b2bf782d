"""Defaults for what a description leaves open and the catalog cannot fill: the health cycle and the
measurements of a software or a hardware reporter (every use is a logged "default" decision)."""

from __future__ import annotations

import re

from tools.describe.draft import DomainDraft

SOFTWARE = re.compile(r"pod|service|api|server|database|db|host|container|app|endpoint|region|cluster|queue|job")
DEFAULT_MEASUREMENTS = {"software": ["request_rate", "error_rate", "p95_latency", "cpu_usage"],
                        "hardware": ["temperature", "vibration", "power_draw"]}
DEFAULT_STATES = {"software": ["healthy", "degraded", "down"],
                  "hardware": ["operational", "warning", "fault", "maintenance"]}


def reporter_kind(draft: DomainDraft) -> str:
    """'software' for services, pods, hosts and the like (or an observability-like text), else 'hardware'."""
    return "software" if SOFTWARE.search(draft.entity.name) or draft.nearest_pack == "observability" else "hardware"
