"""The qa.jsonl records the labelled grader corpus asks about (field names and answer encodings as in
qa.jsonl: see DESIGN.md "Question records"). Questions are worded like the generated suites'."""

from __future__ import annotations

W = "from 09:00 UTC on 2 January 2026 (included) up to 21:00 UTC on 2 January 2026 (excluded)"


def rec(key, template, answer_type, answer, answer_text, question, tol=(0.0, 0.0), naive=None):
    return key, {"id": f"g_{key.lower()}", "question": question, "template": template, "answer_type": answer_type,
                 "answer": answer, "answer_text": answer_text, "tolerance": {"rel": tol[0], "abs": tol[1]},
                 "naive_answer": naive}


RECORDS = dict([
    rec("MEAN_MS", "attribute_mean", "number", 19.6912, "19.69 ms",
        f"What was the mean latency (ms) over all readings of links {W}? Round to 2 decimal places.",
        (0.0, 0.005), naive=25.1),
    rec("MEAN_RPM", "attribute_mean", "number", 10.567361, "10.57 rpm",
        "What was the mean rotor speed (rpm) over all readings from wind turbines whose site is 'north', from "
        "23:00 UTC on 3 January 2026 (included) up to 05:00 UTC on 4 January 2026 (excluded)? Round to 2 decimal "
        "places.", (0.00155, 0.005)),
    rec("STD_RPM", "attribute_std", "number", 1.146595, "1.15 rpm",
        "What was the sample standard deviation (dividing by n - 1) of rotor speed (rpm) over all readings with "
        "status 'producing' from wind turbines whose site is 'west', from 06:00 UTC on 6 January 2026 (included) "
        "up to 18:00 UTC on 6 January 2026 (excluded)? Round to 2 decimal places.", (0.004, 0.005)),
    rec("MAX_RPM", "attribute_extreme", "number", 17.1, "17.1 rpm",
        "What was the highest rotor speed value recorded in any single one of the readings from wind turbines, "
        "from 07:00 UTC on 4 January 2026 (included) up to 10:00 UTC on 4 January 2026 (excluded)? Give the value "
        "as recorded, in rpm.", (0.0, 0.05)),
    rec("PCT_CONV", "conversion_rate", "number", 81.1111, "81.1 percent",
        "Of the sessions that had at least one event of type 'cart', what percentage had an event of type "
        "'purchase' after their first 'cart' event? Count sessions, not events. Round to 1 decimal place.",
        (0.0, 0.05), naive=271.0),
    rec("KPI_CPU", "incident_kpi", "number", 41.2738, "41.27 percent",
        "During the CPU saturation on 6 January, what was the mean cpu (percent) over all readings of the hosts "
        "whose cluster is 'c2' that were not affected by it? Round to 2 decimal places.", (0.0, 0.005)),
    rec("MEAN_TEMP", "attribute_mean", "number", 21.384, "21.38 °C",
        "What was the mean temperature (°C) over all readings from sensors whose zone is 'cold_storage', from 00:00 "
        "UTC on 4 January 2026 (included) up to 12:00 UTC on 4 January 2026 (excluded)? Round to 2 decimal places.",
        (0.0, 0.005), naive=23.9),
    rec("SUM_KWH", "attribute_sum", "number", 5123.4, "5,123.4 kWh",
        "What was the total energy (kWh), summed over all readings from wind turbines whose site is 'east', on "
        "5 January 2026? Round to 1 decimal place.", (0.0, 0.05)),
    rec("RATE_ERR", "event_rate", "number", 14.25, "14.25 per hour",
        "What was the mean number of 'error' events per hour on 6 January 2026, over 24 hours? Round to 2 decimal "
        "places.", (0.0, 0.005), naive=9.5),
    rec("COUNT_TRIG", "count_after_trigger", "integer", 57, "57",
        "How many readings with rotor speed below 13.6 rpm from wind turbines whose site is 'south' occurred within "
        "20 min or less after an earlier reading with rotor speed above 16.1 rpm of the same wind turbine?",
        naive=11196),
    rec("COUNT_CART", "revisit_count", "integer", 63, "63",
        "How many sessions reached 'cart' at least 3 times between 2026-01-02 and 2026-01-03?", naive=118),
    rec("COUNT_ZERO", "revisit_count", "integer", 0, "0",
        "How many users viewed products more than 3 times between 2026-01-02 and 2026-01-03?", naive=4),
    rec("COUNT_SENSORS", "distinct_count", "integer", 4, "4",
        "How many distinct sensors had at least one reading with status 'offline', from 00:00 UTC on 5 January "
        "2026 (included) up to 12:00 UTC on 5 January 2026 (excluded)?"),
    rec("COUNT_BIG", "event_count", "integer", 12345, "12,345",
        "How many readings had cpu above 80 percent, from 00:00 UTC on 3 January 2026 (included) up to 00:00 UTC "
        "on 4 January 2026 (excluded)?", naive=15020),
    rec("DUR_CART", "avg_time_between", "duration", 7800.0, "2 hr 10 min",
        "What is the mean time from a session's first 'cart' event to its first 'purchase' event? Round to the "
        "nearest second.", (0.0, 1.0), naive=5722.8),
    rec("DUR_CRIT", "state_duration", "duration", 9180.0, "2 hr 33 min",
        "What was the mean time a host spent in 'critical' per episode, in hours? Round to 2 decimal places.",
        (0.0, 18.0)),
    rec("DUR_PASS", "first_passage_time", "duration", 258778.0, "2 d 23 hr 52 min 58 sec",
        "What is the mean time from a sensor's first reading to its first entry into 'offline'? Round to the "
        "nearest second.", (0.0, 1.0)),
    rec("BOOL_YES", "exists", "boolean", True, "Yes",
        "Did any sensor report a pressure reading below 1,008.5 hPa on 3 January 2026? Answer yes or no."),
    rec("BOOL_NO", "exists", "boolean", False, "No",
        "Did any cell exceed 5% packet loss on 3 January 2026? Answer yes or no."),
    rec("BOOL_RATIO_NO", "incident_vs_baseline", "boolean", {"value": False, "ratio": 1.1478}, "No (ratio 1.15)",
        "During the rotor speed degradation on 8 January, was the mean rotor speed (rpm) of the wind turbines "
        "whose model is 'TUR-200' that were not affected by it lower than during the same hours on 7 January (one "
        "day earlier), and by what factor? Give the ratio of the two means, rounded to 2 decimal places.",
        (0.0, 0.005)),
    rec("BOOL_RATIO_YES", "incident_vs_baseline", "boolean", {"value": True, "ratio": 3.7}, "Yes (ratio 3.70)",
        "During the outage on 6 January, was packet loss of link L1 higher than during the same hours on "
        "5 January, and by what factor? Round the factor to 2 decimal places.", (0.0, 0.005)),
    rec("ENT_TURB", "incident_worst_entity", "entity", "WIND_TURBINE_010", "WIND_TURBINE_010",
        "During the rotor speed degradation on 8 January, which one of the wind turbines had the largest drop in "
        "mean rotor speed (rpm) compared with its own mean over the same hours on 7 January?"),
    rec("ENT_HOST", "attribute_extreme", "entity", "HOST_07", "HOST_07",
        "Which host had the highest peak cpu (percent) from 00:00 UTC on 6 January 2026 (included) up to 06:00 "
        "UTC on 6 January 2026 (excluded)?"),
    rec("ENT_IFACE", "incident_worst_entity", "entity", {"router": "RTR_001", "interface": "eth2"},
        "RTR_001/eth2",
        "During the link degradation on 4 January, which interface (router and interface) had the highest mean "
        "packet loss (percent)?"),
    rec("LIST_CELLS", "incident_affected", "entity_list", ["CELL_62", "CELL_67", "CELL_7"],
        "CELL_62, CELL_67, CELL_7", "Which cells of zone 3 had an outage on 5 January 2026?"),
    rec("LIST_EMPTY", "incident_affected", "entity_list", [], "none",
        "Which sensors in zone 'cold_storage' went offline on 9 January 2026?"),
    rec("MAP_ZONE", "group_aggregate", "mapping", {"zone_A": 88.0, "zone_B": 80.5}, "zone_A=88, zone_B=80.5",
        "For each zone, what was the highest humidity (percent) in any single one of the readings from sensors, "
        f"{W}? Round to 1 decimal place.", (0.0, 0.05)),
    rec("MAP_TRANS", "transition_counts", "mapping", {"offline": 87, "online": 324}, "offline=87, online=324",
        "For sensors whose zone is 'dock', how many transitions out of 'maintenance' went into each other status, "
        "counting transitions that happened on 5 January 2026? Answer with the number of transitions for each "
        "next status.", (0.0, 0.0), naive={"offline": 87, "online": 324, "tampered": 1286}),
    rec("MAP_DUR", "state_duration", "mapping", {"v1": 7800.0, "v2": 3600.0}, "v1=2 hr 10 min, v2=1 hr",
        "For each firmware, what was the mean duration of an episode in 'degraded'? Round to the nearest second.",
        (0.0, 0.5)),
    rec("MAP_SITE", "group_aggregate", "mapping", {"north": 42.97, "south": 40.09}, "north=42.97, south=40.09",
        f"For each site, what share of readings had status 'curtailed' (percent), {W}? Round to 2 decimal places.",
        (0.0, 0.005)),
    rec("RANK_CELLS", "top_k_by_aggregate", "ranking", [["CELL_4", 308.0], ["CELL_18", 305.0], ["CELL_22", 301.0]],
        "1. CELL_4 (308), 2. CELL_18 (305), 3. CELL_22 (301)",
        "Which 3 cells had the highest total failures (summed over their readings), from 00:00 UTC on 2 January "
        "2026 (included) up to 00:00 UTC on 9 January 2026 (excluded)? List them from highest to lowest with each "
        "one's value.", (0.0, 0.5)),
    rec("RANK_PATHS", "common_paths", "ranking",
        [["operational > warning > operational", 27], ["operational > offline > operational", 8]],
        "1. operational > warning > operational (27), 2. operational > offline > operational (8)",
        "For each of the sensors, list the status values it went through in time order, merging consecutive "
        "readings with the same status into one step, and keep its first 3 steps as a path written like "
        "'x > y > z'. Which 2 paths were followed by the most sensors, and by how many sensors each?", (0.0, 0.5),
        naive=[["operational > operational > operational", 30787], ["offline > offline > offline", 12]]),
    rec("TS_FIRST", "first_event", "timestamp", "2026-01-02T09:15:00Z", "2026-01-02 09:15:00 UTC",
        "When did the first reading with status 'critical' happen on 2 January 2026?"),
    rec("LABEL_PAGE", "attribute_mode", "label", "checkout", "checkout",
        "Which page had the highest exit rate on 3 January 2026?"),
    rec("LABEL_SEMI", "attribute_mode", "label", "warn;hold", "warn;hold",
        "Which status did sensor SENSOR_0012 report most often on 4 January 2026?"),
    rec("TABLE_ZONE", "group_table", "table", {"columns": ["zone", "n"], "rows": [["zone_A", 3], ["zone_B", 5]]},
        "zone_A 3; zone_B 5", "For each zone, how many sensors went offline on 5 January 2026?"),
])
