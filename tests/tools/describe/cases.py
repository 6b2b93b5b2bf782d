"""Twelve domain descriptions (three from the issue) with what a reader must take from each."""

from __future__ import annotations

# (description, entity, count, cadence, horizon, measurements, states) — None: not stated in the text
CASES = [
    ("a wind farm of 40 turbines reporting vibration, rotor speed and power output every 10 minutes; turbines go "
     "through normal, curtailed, fault and maintenance",
     "turbine", 40, "10m", None, ["vibration", "rotor_speed", "power_output"], ["normal", "curtailed", "fault", "maintenance"]),
    ("Kubernetes pods with restarts, OOM kills and CPU throttling",
     "kubernetes_pod", None, None, None, ["restarts", "oom_kills", "cpu_throttling"], []),
    ("a payments API with p95 latency and error rate per region over two weeks",
     "region", None, None, "14d", ["p95_latency", "error_rate"], []),
    ("200 smart meters reporting voltage, current and energy consumption every 15 minutes for 10 days",
     "smart_meter", 200, "15m", "10d", ["voltage", "current", "energy_consumption"], []),
    ("60 refrigerated trucks reporting cargo temperature, humidity and speed every 5 minutes; trucks are driving, "
     "parked, loading or broken down",
     "truck", 60, "5m", None, ["cargo_temperature", "humidity", "speed"], ["driving", "parked", "loading", "broken_down"]),
    ("a fleet of 25 delivery drones reporting altitude, battery level and wind speed every minute over 3 days; "
     "drones can be idle, flying, returning or grounded",
     "delivery_drone", 25, "1m", "3d", ["altitude", "battery_level", "wind_speed"], ["idle", "flying", "returning", "grounded"]),
    ("120 cell towers with dropped call rate, throughput and connected users every 15 minutes; cells go through "
     "active, congested and outage states, with an outage on one site",
     "cell_tower", 120, "15m", None, ["dropped_call_rate", "throughput", "connected_users"], ["active", "congested", "outage"]),
    ("database servers with query latency, connections and disk usage every 5 minutes over a week",
     "database_server", None, "5m", "7d", ["query_latency", "connections", "disk_usage"], []),
    ("30 HVAC units in an office building reporting supply air temperature, fan speed and power draw hourly for 30 "
     "days; units are heating, cooling, idle or faulted",
     "hvac_unit", 30, "1h", "30d", ["supply_air_temperature", "fan_speed", "power_draw"], ["heating", "cooling", "idle", "faulted"]),
    ("50 ATMs reporting cash level, transaction count and error count every 30 minutes; ATMs are in service, out "
     "of cash or offline",
     "atm", 50, "30m", None, ["cash_level", "transaction_count", "error_count"], ["in_service", "out_of_cash", "offline"]),
    ("500 water pumps with flow rate, pressure and motor temperature every 10 minutes over 5 days, with a slow "
     "pressure drift",
     "water_pump", 500, "10m", "5d", ["flow_rate", "pressure", "motor_temperature"], []),
    ("a web shop's checkout service with request rate, error rate and p99 latency per region every minute for 2 days",
     "region", None, "1m", "2d", ["request_rate", "error_rate", "p99_latency"], []),
]
