"""Individually hand-written corpus rows: (record key, shape, response, label, reason). Each label is
what the response claims read by a careful human against the expected answer (records.py)."""

from __future__ import annotations

C, I, R = "correct", "incorrect", "runtime_error"  # noqa: E741

HAND_NUMBERS = [
    ("MEAN_MS", "prose", "Between 09:00 and 21:00 UTC on 2 January 2026 the mean latency over 1,212 readings was "
     "19.69 ms.", C, "19.69 ms; 1,212 is the number of readings"),
    ("MEAN_MS", "prose", "Across the 1,212 link readings in the window, average latency = 19.69 ms (median 17.20 ms, "
     "max 88.41 ms).", C, "the mean is labelled; median and max are other statistics"),
    ("MEAN_MS", "prose", "The average latency was 19.7 ms.", I, "19.7 is outside ±0.005"),
    ("MEAN_MS", "prose", "Mean latency: 19.691 ms (rounded 19.69 ms)", C, "both round to 19.69"),
    ("MEAN_MS", "prose", "19,69 ms", I, "a decimal comma reads as 1969"),
    ("MEAN_MS", "prose", "The average is approximately 20 milliseconds.", I, "20 is not 19.69"),
    ("MEAN_MS", "json", '{"answer": 19.69, "unit": "ms"}', C, "the answer field"),
    ("MEAN_MS", "json", '{"mean_latency_ms": 19.69, "n": 1212, "window": ["2026-01-02T09:00:00Z", '
     '"2026-01-02T21:00:00Z"]}', C, "the named measure"),
    ("MEAN_MS", "code_result", "I computed it with SQL:\n```sql\nSELECT avg(latency) FROM links WHERE ts >= "
     "'2026-01-02 09:00' AND ts < '2026-01-02 21:00'\n```\nResult: 19.69", C, "the result line"),
    ("MEAN_MS", "dataframe", "   avg(latency)\n0     19.691203", C, "19.6912"),
    ("MEAN_MS", "dataframe", "   count  avg_latency\n0   1212    19.691203", C, "avg column"),
    ("MEAN_MS", "dataframe", "   count  avg_latency\n0   1212    25.100000", I, "the naive mean"),
    ("MEAN_MS", "prose", "The mean latency was 25.10 ms.", I, "the naive value"),
    ("MEAN_MS", "prose", "Mean latency was 19.69 ms for the first link and 21.30 ms for the second.", I,
     "no overall mean; two per-link values"),
    ("MEAN_MS", "prose", "The mean latency over the 12 hours was 19.69 ms.", C, "12 hours is the window"),
    ("MEAN_MS", "chart_only", "Here's a line chart of latency between 09:00 and 21:00 UTC:\n\n[chart: "
     "latency_ms by hour]", I, "no value"),
    ("MEAN_MS", "clarifying_question", "Should I include readings with a null latency in the average?", I,
     "no answer"),
    ("MEAN_MS", "refusal", "I don't have access to the links table.", R, "refusal"),
    ("MEAN_MS", "prose", "0.0197 seconds", I, "19.7 ms, outside tolerance"),
    ("MEAN_MS", "prose", "Average latency ≈ 19.69ms", C, "unit glued to the number"),
    ("MEAN_MS", "markdown_table", "| metric | value |\n|---|---|\n| mean latency (ms) | 19.69 |\n| readings | 1212 |",
     C, "key/value table, the mean row"),
    ("MEAN_MS", "markdown_table", "| metric | value |\n|---|---|\n| mean latency (ms) | 25.10 |\n| readings | 1212 |",
     I, "the naive mean"),
    ("MEAN_RPM", "prose", "For the north site between 23:00 on 3 January and 05:00 on 4 January, the mean rotor "
     "speed was 10.57 rpm.", C, "10.57"),
    ("MEAN_RPM", "prose", "Mean rotor speed (north, 6 h window): 10.6 rpm", I, "10.6 is outside tolerance"),
    ("MEAN_RPM", "json_records", '[{"site": "north", "avg_rotor_speed": 10.567, "first_ts": 1767481200000, '
     '"last_ts": 1767502800000}]', C, "10.567; epoch ms are dates"),
    ("MEAN_RPM", "json_records", '[{"site": "north", "avg_rotor_speed": 12.41, "first_ts": 1767481200000}]', I,
     "12.41"),
    ("MEAN_RPM", "code_result", "```python\ndf[(df.site=='north') & (df.ts >= '2026-01-03 23:00') & (df.ts < "
     "'2026-01-04 05:00')].rotor_speed.mean()\n```\n10.567361111111111", C, "the printed mean"),
    ("MEAN_RPM", "code_result", "```python\nprint(df.rotor_speed.mean())\n```\n```\n11.842\n```", I,
     "mean over the wrong scope"),
    ("STD_RPM", "prose", "The sample standard deviation is 1.15 rpm (mean 12.30 rpm, n = 144).", C,
     "the std is labelled"),
    ("STD_RPM", "prose", "Standard deviation (n-1): 1.147", C, "1.147 within tolerance"),
    ("STD_RPM", "prose", "Population std = 1.14, sample std = 1.15", C, "the sample std is labelled"),
    ("STD_RPM", "prose", "std: 1.32 rpm", I, "wrong value"),
    ("MAX_RPM", "prose", "The highest rotor speed recorded was 17.1 rpm (WIND_TURBINE_004 at 08:40 UTC).", C, "17.1"),
    ("MAX_RPM", "markdown_table", "| turbine | max_rotor_speed | at |\n|---|---|---|\n| WIND_TURBINE_004 | 17.1 | "
     "2026-01-04 08:40 |", C, "17.1"),
    ("MAX_RPM", "markdown_table", "| turbine | max_rotor_speed |\n|---|---|\n| WIND_TURBINE_004 | 17.1 |\n"
     "| WIND_TURBINE_011 | 16.8 |", C, "the top row of a per-turbine max table is the overall max"),
    ("MAX_RPM", "prose", "Max rotor speed: 16.8 rpm", I, "16.8"),
    ("MAX_RPM", "prose", "17 rpm", I, "17 is outside ±0.05 of 17.1"),
    ("KPI_CPU", "prose", "Unaffected c2 hosts averaged 41.27% CPU during the saturation.", C, "41.27"),
    ("KPI_CPU", "prose", "41.27", C, "bare"),
    ("KPI_CPU", "prose", "0.4127", I, "a fraction, not percent"),
    ("KPI_CPU", "prose", "The unaffected hosts averaged 41.27% CPU while the 3 affected hosts averaged 93.10%.", C,
     "the unaffected hosts' mean is the one asked"),
    ("KPI_CPU", "prose", "Mean CPU of c2 during the incident: 58.4%", I, "all hosts, wrong value"),
    ("PCT_CONV", "prose", "81.1% of cart sessions later purchased (292 of 360).", C, "81.1; counts are support"),
    ("PCT_CONV", "prose", "292 out of 360 sessions converted, i.e. 81.1%.", C, "the percentage"),
    ("PCT_CONV", "prose", "The conversion rate is 0.811.", I, "a fraction where percent was asked"),
    ("PCT_CONV", "prose", "Conversion: 81.11 %", C, "81.11 within 0.05"),
    ("PCT_CONV", "prose", "About 80%", I, "80"),
    ("PCT_CONV", "json", '{"conversion_rate_pct": 81.1, "converted": 292, "carted": 360}', C, "named field"),
    ("PCT_CONV", "json", '{"conversion_rate_pct": 271.0, "converted": 976, "carted": 360}', I, "the naive rate"),
]

HAND_COUNTS = [
    ("COUNT_CART", "prose", "63 sessions", C, "63"),
    ("COUNT_CART", "prose", "There were 63 sessions that reached the cart 3 or more times.", C, "3 is the threshold"),
    ("COUNT_CART", "prose", "A total of **63** sessions.", C, "bold"),
    ("COUNT_CART", "prose", "Out of 1,204 sessions, 63 reached the cart at least 3 times.", C,
     "1,204 is the denominator"),
    ("COUNT_CART", "prose", "Of the 1,204 sessions in those two days, 118 had 3 or more cart events.", I,
     "the naive count"),
    ("COUNT_CART", "prose", "sixty-three", C, "63 in words"),
    ("COUNT_CART", "prose", "63.0", C, "63"),
    ("COUNT_CART", "prose", "I found 64 sessions.", I, "64"),
    ("COUNT_CART", "prose", "Between 2026-01-02 and 2026-01-03, 63 sessions reached 'cart' at least 3 times.", C,
     "dates and threshold echoed"),
    ("COUNT_CART", "prose", "At least 3 times: 63 sessions.", C, "echo then the count"),
    ("COUNT_CART", "prose", "3 sessions", I, "3 is stated as the number of sessions"),
    ("COUNT_CART", "code_result", "```sql\nSELECT COUNT(*) FROM (SELECT session_id FROM events WHERE event_type = "
     "'cart' GROUP BY session_id HAVING COUNT(*) >= 3)\n```\n| count_star() |\n|---|\n| 63 |", C, "the result table"),
    ("COUNT_CART", "code_result", "```sql\nSELECT COUNT(*) FROM events WHERE event_type = 'cart' HAVING COUNT(*) >= 3\n"
     "```\n| count_star() |\n|---|\n| 118 |", I, "the naive count"),
    ("COUNT_CART", "json_records", '[{"n_sessions": 63, "from": 1767312000000, "to": 1767398400000}]', C,
     "epoch ms are dates"),
    ("COUNT_CART", "json_records", '[{"n_sessions": 118, "from": 1767312000000, "to": 1767398400000}]', I, "naive"),
    ("COUNT_CART", "prose", "The answer is 63, although if you count the re-opened sessions it would be 66.", I,
     "hedges between 63 and 66"),
    ("COUNT_TRIG", "prose", "57 readings below 13.6 rpm followed a reading above 16.1 rpm within 20 minutes.", C,
     "the thresholds are echoed"),
    ("COUNT_TRIG", "prose", "Within 20 min of a reading above 16.1 rpm, there were 57 readings below 13.6 rpm at the "
     "south site.", C, "57"),
    ("COUNT_TRIG", "prose", "11,196 readings are below 13.6 rpm at the south site.", I, "the naive count"),
    ("COUNT_TRIG", "prose", "No reading below 13.6 rpm followed a reading above 16.1 rpm within 20 min.", I, "0"),
    ("COUNT_TRIG", "markdown_table", "| site | n_after_trigger | n_below |\n|---|---|---|\n| south | 57 | 11196 |",
     C, "the after-trigger column"),
    ("COUNT_TRIG", "dataframe", "    site  matches\n0  south       57", C, "57"),
    ("COUNT_ZERO", "prose", "No users viewed products more than 3 times between 2026-01-02 and 2026-01-03.", C,
     "none = 0; 3 is the threshold"),
    ("COUNT_ZERO", "prose", "None of the users exceeded 3 product views.", C, "0"),
    ("COUNT_ZERO", "prose", "[]", C, "an empty result"),
    ("COUNT_ZERO", "prose", "The query returned no rows, so the count is 0.", C, "0"),
    ("COUNT_ZERO", "prose", "4 users viewed products more than 3 times.", I, "4"),
    ("COUNT_ZERO", "prose", "Users with more than 3 views: USER_1013, USER_2210, USER_3001, USER_0007", I,
     "a list of 4"),
    ("COUNT_BIG", "prose", "12,345 readings", C, "12345"),
    ("COUNT_BIG", "prose", "12345", C, "12345"),
    ("COUNT_BIG", "prose", "12.3k readings", I, "not exact"),
    ("COUNT_BIG", "prose", "about 12 thousand", I, "not exact"),
    ("COUNT_BIG", "prose", "There were 12 345 readings above 80%.", C, "a thin-space thousands separator"),
    ("COUNT_BIG", "prose", "12,345 of the 86,400 readings (14.3%) had cpu above 80 percent.", C,
     "the share and denominator are support"),
    ("COUNT_BIG", "markdown_table", "| hosts | readings_above_80 |\n|---|---|\n| 60 | 12345 |", C, "named column"),
    ("COUNT_BIG", "markdown_table", "| hosts | readings_above_80 |\n|---|---|\n| 60 | 15020 |", I, "naive count"),
    ("COUNT_SENSORS", "prose", "Four sensors went offline in that window.", C, "four"),
    ("COUNT_SENSORS", "prose", "4", C, "4"),
    ("COUNT_SENSORS", "prose", "Sensors SENSOR_0003, SENSOR_0011, SENSOR_0042 and SENSOR_0107 went offline (4 in "
     "total).", C, "4"),
    ("COUNT_SENSORS", "prose", "SENSOR_0003 and SENSOR_0011 went offline.", I, "2"),
    ("COUNT_SENSORS", "json_records", '[{"sensor_id": 3, "offline_at": 1767571260000}, {"sensor_id": 11, '
     '"offline_at": 1767572000000}, {"sensor_id": 42, "offline_at": 1767580000000}, {"sensor_id": 107, '
     '"offline_at": 1767590000000}]', C, "4 records; ids and epochs are not values"),
    ("COUNT_SENSORS", "markdown_table", "| sensor_id | offline_readings |\n|---|---|\n| SENSOR_0003 | 12 |\n"
     "| SENSOR_0011 | 1 |\n| SENSOR_0042 | 3 |\n| SENSOR_0107 | 7 |", C, "4 rows (readings per sensor are not "
     "the count)"),
    ("COUNT_SENSORS", "markdown_table", "| n_sensors |\n|---|\n| 4 |", C, "4"),
    ("COUNT_SENSORS", "markdown_table", "| n_sensors |\n|---|\n| 23 |", I, "23 (readings counted)"),
    ("COUNT_SENSORS", "prose", "23 offline readings came from 4 sensors.", C, "4 sensors"),
    ("COUNT_SENSORS", "prose", "There were 23 offline readings.", I, "readings, not sensors"),
]

HAND_DURATIONS = [
    ("DUR_CART", "prose", "On average it takes 2 h 10 min from the first cart to the first purchase.", C, "7800 s"),
    ("DUR_CART", "prose", "Mean time to purchase: 7800.0 s (412 sessions)", C, "7800"),
    ("DUR_CART", "prose", "130.0 minutes", C, "7800"),
    ("DUR_CART", "prose", "The mean gap is 1 hour 35 minutes 23 seconds.", I, "the naive value"),
    ("DUR_CART", "prose", "Around 2 hours.", I, "not within 1 s"),
    ("DUR_CART", "prose", "2.1667 hours", C, "7800.1 s"),
    ("DUR_CART", "dataframe", "   mean_delta\n0  0 days 02:10:00", C, "a Timedelta"),
    ("DUR_CART", "dataframe", "   mean_delta\n0  0 days 01:35:22.800000", I, "the naive value"),
    ("DUR_CART", "json_records", '[{"mean_seconds": 7800, "first_cart": 1767312000000}]', C, "7800"),
    ("DUR_CART", "prose", "It takes 45 minutes on average.", I, "45 min"),
    ("DUR_CRIT", "prose", "Hosts spent on average 2.55 hours in 'critical' per episode.", C, "2.55 h"),
    ("DUR_CRIT", "prose", "2.55 h per episode (14 episodes across 6 hosts).", C, "2.55 h"),
    ("DUR_CRIT", "prose", "The mean critical episode lasted 153 minutes.", C, "153 min = 2.55 h"),
    ("DUR_CRIT", "prose", "About 2.6 hours.", I, "2.6 h is 9360 s, outside 18 s"),
    ("DUR_CRIT", "markdown_table", "| host | avg_hours_in_critical |\n|---|---|\n| all | 2.55 |", C, "header unit"),
    ("DUR_PASS", "prose", "It takes about 2 days, 23 hours, 52 minutes and 58 seconds.", C, "258778 s"),
    ("DUR_PASS", "prose", "258778", C, "seconds by default"),
    ("DUR_PASS", "prose", "2.995 days", I, "not to the second"),
]

HAND_BOOLEANS = [
    ("BOOL_YES", "prose", "Yes. SENSOR_0012 dropped to 1,004.2 hPa at 14:20 UTC.", C, "yes"),
    ("BOOL_YES", "prose", "Yes, 3 sensors did.", C, "yes"),
    ("BOOL_YES", "prose", "Based on the data, Yes.", C, "yes"),
    ("BOOL_YES", "prose", "There were 3 readings below 1,008.5 hPa, so yes.", C, "yes"),
    ("BOOL_YES", "prose", "No sensor reported a pressure below 1,008.5 hPa.", I, "no"),
    ("BOOL_YES", "prose", "The minimum pressure on 3 January was 1,004.2 hPa.", C,
     "the stated minimum is below the threshold, which answers yes"),
    ("BOOL_YES", "prose", "I think the answer is 42.", I, "not a yes/no"),
    ("BOOL_YES", "prose", "1,004.2 hPa", I, "a figure, no yes/no"),
    ("BOOL_YES", "json", '{"answer": "yes", "evidence": {"sensor": "SENSOR_0012", "min_pressure": 1004.2}}', C, "yes"),
    ("BOOL_YES", "json", '{"answer": false}', I, "no"),
    ("BOOL_YES", "dataframe", "   below_threshold  n\n0             True  3", C, "True"),
    ("BOOL_YES", "code_result", "```python\n(df.pressure < 1008.5).any()\n```\nTrue", C, "True"),
    ("BOOL_YES", "code_result", "```python\n(df.pressure < 1008.5).any()\n```\nFalse", I, "False"),
    ("BOOL_YES", "clarifying_question", "Do you mean any single reading, or the daily mean per sensor?", I,
     "no answer"),
    ("BOOL_NO", "prose", "No. The maximum packet loss on 3 January was 4.2%, below the 5% threshold.", C, "no"),
    ("BOOL_NO", "prose", "None of the cells exceeded 5% on 3 January 2026.", C, "no"),
    ("BOOL_NO", "prose", "The data shows that no cell exceeded the threshold.", C, "no"),
    ("BOOL_NO", "prose", "Yes: CELL_3 (7.2%) and CELL_19 (5.4%).", I, "yes"),
    ("BOOL_NO", "prose", "Not a single cell went above 5% packet loss that day.", C, "no"),
    ("BOOL_NO", "prose", "I think the answer is 42", I, "not a yes/no"),
    ("BOOL_NO", "prose", "The highest packet loss that day was 4.2%.", C, "4.2% is below 5%, which answers no"),
    ("BOOL_NO", "prose", "0 cells exceeded 5% packet loss on 3 January.", C, "zero cells = no"),
    ("BOOL_NO", "prose", "2 cells exceeded 5% packet loss on 3 January.", I, "two cells = yes"),
    ("BOOL_NO", "markdown_table", "| cell | max_loss_pct |\n|---|---|\n| CELL_3 | 4.2 |\n| CELL_19 | 3.9 |\n\nNo.", C,
     "no"),
    ("BOOL_RATIO_NO", "prose", "No. The mean rotor speed on 8 January was 1.15 times the 7 January mean (13.13 vs "
     "11.44 rpm).", C, "no with ratio 1.15"),
    ("BOOL_RATIO_NO", "prose", "It was not lower; ratio = 1.148.", C, "no, 1.148"),
    ("BOOL_RATIO_NO", "prose", "No — it was higher, by a factor of 1.15.", C, "no, 1.15"),
    ("BOOL_RATIO_NO", "prose", "Yes, it was lower (ratio 0.87).", I, "yes"),
    ("BOOL_RATIO_NO", "prose", "No, the means were 13.13 rpm and 11.44 rpm.", I, "the factor asked for is not given"),
    ("BOOL_RATIO_NO", "prose", "The ratio is 1.15.", I, "no yes/no, though the question asks lower or not"),
    ("BOOL_RATIO_NO", "json", '{"lower": false, "ratio": 1.148, "baseline_mean": 11.44, "incident_mean": 13.13}', C,
     "no, ratio 1.148"),
    ("BOOL_RATIO_NO", "json", '{"lower": false, "ratio": 1.25}', I, "wrong ratio"),
    ("BOOL_RATIO_YES", "prose", "Yes. Packet loss on 6 January was 3.70x the 5 January level (7.4% vs 2.0%).", C,
     "yes, 3.70"),
    ("BOOL_RATIO_YES", "prose", "Yes, by a factor of 3.7.", C, "yes, 3.7"),
    ("BOOL_RATIO_YES", "prose", "Yes, about four times higher.", I, "4 is not 3.70"),
    ("BOOL_RATIO_YES", "prose", "Higher, 3.70 times.", C, "higher answers yes, with the factor"),
]

HAND_ENTITIES = [
    ("ENT_TURB", "prose", "WIND_TURBINE_010 (drop of 4.21 rpm, from 14.02 to 9.81 rpm).", C, "010"),
    ("ENT_TURB", "prose", "Turbine WIND_TURBINE_010.", C, "010"),
    ("ENT_TURB", "prose", "The turbine with the largest drop was WIND_TURBINE_003.", I, "003"),
    ("ENT_TURB", "prose", "WIND_TURBINE_003 dropped first at 06:10, but the largest drop was at WIND_TURBINE_010.",
     C, "the largest drop is named"),
    ("ENT_TURB", "prose", "Final answer: WIND_TURBINE_010", C, "010"),
    ("ENT_TURB", "prose", "Several turbines dropped: WIND_TURBINE_003, WIND_TURBINE_010 and WIND_TURBINE_017.", I,
     "lists three, none singled out"),
    ("ENT_TURB", "chart_only", "![drop by turbine](figures/drop.png)", I, "chart only"),
    ("ENT_HOST", "prose", "HOST_07 had the highest peak CPU (99.2%), followed by HOST_12 (97.0%).", C, "HOST_07"),
    ("ENT_HOST", "prose", "HOST_12 had the highest peak CPU (99.5%), followed by HOST_07 (99.2%).", I, "HOST_12"),
    ("ENT_HOST", "prose", "The peak was reached by host 7.", C, "host 7 is HOST_07"),
    ("ENT_HOST", "dataframe", "      host  peak_cpu\n3  HOST_07      99.2\n8  HOST_12      97.0", C,
     "the top row (index labels are not ranks)"),
    ("ENT_IFACE", "prose", "RTR_001 eth2 had the highest mean packet loss (7.4%).", C, "same row"),
    ("ENT_IFACE", "prose", "The worst interface was eth2 on RTR_001.", C, "both parts, one claim"),
    ("ENT_IFACE", "prose", "The worst interface was eth0 on RTR_001; eth2 on RTR_003 was second.", I,
     "RTR_001/eth0"),
    ("ENT_IFACE", "markdown_table", "| router_interface | loss |\n|---|---|\n| RTR_001/eth0 | 7.9 |\n"
     "| RTR_001/eth2 | 7.4 |", I, "the top row is eth0"),
    ("ENT_IFACE", "markdown_table", "| router_interface | loss |\n|---|---|\n| RTR_001/eth2 | 7.4 |\n"
     "| RTR_001/eth0 | 6.1 |", C, "the top row"),
    ("ENT_IFACE", "prose", "RTR_001", I, "the interface is missing"),
    ("LIST_CELLS", "prose", "CELL_7, CELL_62 and CELL_67", C, "any order"),
    ("LIST_CELLS", "prose", "Cells 62, 67 and 7 had an outage.", C, "the cell numbers after 'Cells'"),
    ("LIST_CELLS", "prose", "Three cells had an outage: CELL_62, CELL_67 and CELL_7.", C, "the three cells"),
    ("LIST_CELLS", "prose", "CELL_62, CELL_67, CELL_7 and CELL_9 all had an outage.", I, "CELL_9 is extra"),
    ("LIST_CELLS", "json", '{"cells": ["CELL_62", "CELL_67", "CELL_7"], "window_start": 1767571200000}', C, "the list"),
    ("LIST_CELLS", "json", '{"cells": ["CELL_62", "CELL_67"], "window_start": 1767571200000}', I, "one missing"),
    ("LIST_CELLS", "dataframe", "  cell_id           outage_start\n0  CELL_62  2026-01-05 03:10:00\n1  CELL_67  "
     "2026-01-05 03:12:00\n2   CELL_7  2026-01-05 03:40:00", C, "three rows"),
    ("LIST_EMPTY", "prose", "No sensor in cold_storage went offline on 9 January.", C, "none"),
    ("LIST_EMPTY", "prose", "SENSOR_0004 and SENSOR_0019 went offline.", I, "two sensors"),
    ("LIST_EMPTY", "prose", "The query returned an empty result.", C, "none"),
]

HAND_STRUCTURED = [
    ("MAP_ZONE", "prose", "zone_A: 88.0% (at 14:00 UTC), zone_B: 80.5% (at 16:00 UTC)", C, "both"),
    ("MAP_ZONE", "prose", "Zone A peaked at 88.0% humidity; zone B at 80.5%.", C, "both"),
    ("MAP_ZONE", "prose", "Zone A peaked at 88.0% humidity; zone B at 81.0%.", I, "zone_B wrong"),
    ("MAP_ZONE", "prose", "The overall maximum was 88.0% (zone_A).", I, "zone_B missing"),
    ("MAP_ZONE", "markdown_table", "| zone | max_humidity | readings |\n|---|---|---|\n| zone_A | 88.0 | 720 |\n"
     "| zone_B | 80.5 | 720 |", C, "value column by header"),
    ("MAP_ZONE", "markdown_table", "| zone | readings | max_humidity |\n|---|---|---|\n| zone_A | 720 | 88.0 |\n"
     "| zone_B | 720 | 80.5 |", C, "value column by header, second position"),
    ("MAP_ZONE", "markdown_table", "| zone | readings | max_humidity |\n|---|---|---|\n| zone_A | 720 | 85.2 |\n"
     "| zone_B | 720 | 80.5 |", I, "zone_A wrong"),
    ("MAP_ZONE", "json_records", '[{"zone": "zone_A", "ts": 1767344400000, "max_humidity": 88.0}, {"zone": "zone_B", '
     '"ts": 1767351600000, "max_humidity": 80.5}]', C, "epoch ms first, value second"),
    ("MAP_ZONE", "json_records", '[{"zone": "zone_A", "ts": 1767344400000, "max_humidity": 88.0}, {"zone": "zone_B", '
     '"ts": 1767351600000, "max_humidity": 82.5}]', I, "zone_B wrong"),
    ("MAP_ZONE", "jsonl", '{"zone": "zone_A", "max_humidity": 88.0}\n{"zone": "zone_B", "max_humidity": 80.5}', C,
     "JSONL records"),
    ("MAP_TRANS", "prose", "Out of 'maintenance': offline 87 times, online 324 times.", C, "both"),
    ("MAP_TRANS", "prose", "Transitions from maintenance — offline: 87, online: 324 (411 in total).", C,
     "a total is not a key"),
    ("MAP_TRANS", "prose", "offline: 87\nonline: 324\ntampered: 1286", I, "extra key"),
    ("MAP_TRANS", "prose", "offline: 87, online: 324, tampered: 0", C, "a zero row adds nothing"),
    ("MAP_TRANS", "markdown_table", "| from | to | n |\n|---|---|---|\n| maintenance | offline | 87 |\n"
     "| maintenance | online | 324 |", C, "to/n columns"),
    ("MAP_TRANS", "markdown_table", "| from | to | n |\n|---|---|---|\n| maintenance | offline | 87 |\n"
     "| maintenance | online | 324 |\n| maintenance | tampered | 1286 |", I, "extra key"),
    ("MAP_DUR", "prose", "Firmware v1: 2 h 10 min on average; v2: 60 min.", C, "both"),
    ("MAP_DUR", "prose", "v1 and v2 averaged 7800 s and 3600 s respectively.", C, "respectively"),
    ("MAP_DUR", "prose", "v1 and v2 averaged 3600 s and 7800 s respectively.", I, "swapped"),
    ("MAP_SITE", "prose", "42.97% and 40.09% respectively for north and south.", C, "values before keys"),
    ("MAP_SITE", "prose", "North: 42.97%, South: 40.09%", C, "both"),
    ("MAP_SITE", "prose", "North: 42.97%, South: 40.09%, West: 38.50%", I, "extra site"),
    ("MAP_SITE", "prose", "The north site had 42.97% curtailed readings.", I, "south missing"),
    ("RANK_CELLS", "prose", "CELL_4 leads with 308 failures, then CELL_18 (305) and CELL_22 (301).", C, "all"),
    ("RANK_CELLS", "prose", "1) CELL_4 – 308\n2) CELL_18 – 305\n3) CELL_22 – 301", C, "all"),
    ("RANK_CELLS", "prose", "1) CELL_4 – 308\n2) CELL_22 – 301\n3) CELL_18 – 305", I, "order"),
    ("RANK_CELLS", "json", '{"top_cells": [["CELL_4", 308], ["CELL_18", 305], ["CELL_22", 301]]}', C, "all"),
    ("RANK_CELLS", "dataframe", "   cell_id  failures\n17  CELL_4       308\n4   CELL_18      305\n9   CELL_22      "
     "301", C, "index labels are not values"),
    ("RANK_CELLS", "dataframe", "   cell_id  failures\n17  CELL_4       308\n4   CELL_18      305\n9   CELL_22      "
     "298", I, "CELL_22 value"),
    ("RANK_CELLS", "markdown_table", "| cell | failures | first_failure |\n|---|---|---|\n| CELL_4 | 308 | "
     "2026-01-02 00:14 |\n| CELL_18 | 305 | 2026-01-02 01:02 |\n| CELL_22 | 301 | 2026-01-02 00:55 |", C,
     "dates are not values"),
    ("RANK_PATHS", "prose", "The most common paths were operational > warning > operational (27 sensors) and "
     "operational > offline > operational (8 sensors).", C, "both"),
    ("RANK_PATHS", "prose", "1. operational → warning → operational (27)\n2. operational → offline → operational (8)\n"
     "3. operational → maintenance → operational (5)", I, "three paths where two were asked"),
    ("TS_FIRST", "prose", "At 09:15 UTC on 2 January 2026.", C, "same instant"),
    ("TS_FIRST", "prose", "2 January 2026 at 09:15 UTC", C, "same instant"),
    ("TS_FIRST", "prose", "At 09:30 UTC on 2 January 2026.", I, "09:30"),
    ("TS_FIRST", "json", '{"first_critical_ts": "2026-01-02T09:15:00.000Z", "sensor": "SENSOR_0031"}', C, "same"),
    ("TS_FIRST", "prose", "The first critical reading came from SENSOR_0031 at 2026-01-02 09:15 UTC, the second at "
     "2026-01-02 09:40 UTC.", C, "the first is named"),
    ("LABEL_PAGE", "prose", "checkout (38.2% of its views ended the session)", C, "checkout"),
    ("LABEL_PAGE", "prose", "The highest exit rate is on the checkout page.", C, "checkout"),
    ("LABEL_PAGE", "prose", "Cart has the highest exit rate, followed by checkout.", I, "cart"),
    ("LABEL_PAGE", "prose", "I think the answer is 42", I, "not a page"),
    ("LABEL_PAGE", "json", '{"page": "checkout", "exit_rate": 0.382}', C, "checkout"),
    ("LABEL_SEMI", "prose", "SENSOR_0012 most often reported warn;hold (212 readings).", C, "the label with its ;"),
    ("LABEL_SEMI", "markdown_table", "| status | n |\n|---|---|\n| warn;hold | 212 |\n| ok | 180 |", C, "top row"),
    ("TABLE_ZONE", "prose", "zone_A: 3, zone_B: 5", C, "same rows"),
    ("TABLE_ZONE", "dataframe", "     zone  n\n0  zone_A  3\n1  zone_B  5", C, "same rows"),
    ("TABLE_ZONE", "dataframe", "     zone  n\n0  zone_A  3\n1  zone_B  4", I, "zone_B wrong"),
]

HAND_MISC = [
    ("MEAN_MS", "empty", "", R, "empty"),
    ("COUNT_CART", "garbage", "Traceback (most recent call last):\n  File \"agent.py\", line 3\nKeyError: 'x'", R,
     "a traceback"),
    ("COUNT_CART", "garbage", "%%$#@!!~~^^&&**((", R, "noise"),
    ("BOOL_NO", "refusal", "No idea.", R, "refusal"),
    ("BOOL_NO", "refusal", "I don't know.", R, "refusal"),
    ("COUNT_CART", "refusal", "Unknown", R, "refusal"),
    ("COUNT_CART", "refusal", "I'm sorry, but I cannot access the database.", R, "refusal"),
    ("MAP_ZONE", "refusal", "Sorry, I couldn't find a humidity column in the schema.", R, "refusal"),
    ("RANK_CELLS", "clarifying_question", "By 'failures' do you mean failed readings or failure events?", I,
     "asks back"),
    ("MAP_ZONE", "clarifying_question", "Which zones do you want? There are 4 zones: zone_A, zone_B, zone_C, zone_D.",
     I, "asks back"),
    ("ENT_TURB", "clarifying_question", "Do you want the absolute or the relative drop?", I, "asks back"),
    ("DUR_CART", "clarifying_question", "Should sessions without a purchase count as 0 or be left out?", I, "asks"),
    ("COUNT_TRIG", "chart_only", "I plotted rotor speed for the south site below.\n\n![rotor speed](chart.png)", I,
     "chart only"),
    ("RANK_CELLS", "chart_only", "![failures by cell](figures/failures.png)\n\nThe bar chart shows failures per cell.",
     I, "chart only"),
    ("MAP_SITE", "chart_only", "[Plotly figure: curtailed share by site]", I, "chart only"),
    ("MEAN_MS", "code_only", "```sql\nSELECT AVG(latency) FROM links WHERE ts >= '2026-01-02 09:00:00' AND ts < "
     "'2026-01-02 21:00:00';\n```", I, "SQL without its result"),
    ("COUNT_CART", "code_only", "```python\nresult = df[df.event == 'cart'].groupby('session').size().ge(3).sum()\n"
     "```", I, "code without its result"),
    ("MAP_ZONE", "code_only", "SELECT zone, MAX(humidity) FROM readings GROUP BY zone;", I, "SQL only"),
]

HAND_AGENT_STYLES = [
    # LangChain SQL agent: narrated steps, then the final answer
    ("MEAN_MS", "sql_agent", "I'll look at the links table first. The table has columns ts, link_id, latency_ms. Now I "
     "will query the mean latency between 09:00 and 21:00 UTC on 2026-01-02.\n\nThe mean latency over that window is "
     "19.69 ms.", C, "final sentence"),
    ("MEAN_MS", "sql_agent", "Thought: I should filter to the window and average latency.\nAction: sql_db_query\n"
     "Action Input: SELECT AVG(latency_ms) FROM links WHERE ts >= '2026-01-02 09:00:00' AND ts < '2026-01-02 "
     "21:00:00'\nObservation: [(19.691203,)]\nThought: I now know the final answer\nFinal Answer: 19.69 ms", C,
     "final answer"),
    ("MEAN_MS", "sql_agent", "Thought: I should filter to the window and average latency.\nAction: sql_db_query\n"
     "Action Input: SELECT AVG(latency_ms) FROM links\nObservation: [(25.1,)]\nThought: I now know the final answer\n"
     "Final Answer: The mean latency is 25.10 ms.", I, "the naive mean"),
    ("COUNT_CART", "sql_agent", "Observation: [(63,)]\nFinal Answer: 63 sessions reached the cart at least 3 times.", C,
     "63"),
    ("COUNT_CART", "sql_agent", "Observation: [(118,)]\nFinal Answer: 118", I, "naive"),
    ("RANK_CELLS", "sql_agent", "Observation: [('CELL_4', 308), ('CELL_18', 305), ('CELL_22', 301)]\nFinal Answer: "
     "The top 3 cells are CELL_4 (308), CELL_18 (305) and CELL_22 (301).", C, "all three"),
    ("MAP_ZONE", "sql_agent", "Observation: [('zone_A', 88.0), ('zone_B', 80.5)]\nFinal Answer: zone_A: 88.0, "
     "zone_B: 80.5", C, "both"),
    # PandasAI: short strings, numbers, dataframes
    ("MEAN_RPM", "pandasai", "The average rotor speed for the north site in that window is 10.57.", C, "10.57"),
    ("COUNT_SENSORS", "pandasai", "4 sensors went offline.", C, "4"),
    ("LIST_CELLS", "pandasai", "CELL_62, CELL_67, CELL_7", C, "the cells"),
    ("ENT_HOST", "pandasai", "HOST_07", C, "HOST_07"),
    ("RANK_CELLS", "pandasai", "      cell_id  failures\n3      CELL_4       308\n17    CELL_18       305\n21    "
     "CELL_22       301", C, "dataframe with index"),
    ("MAP_SITE", "pandasai", "{'type': 'dataframe', 'value':   site  curtailed_pct\n0  north          42.97\n1  south"
     "          40.09}", C, "a PandasAI result dict with a DataFrame"),
    # Vanna: SQL, DataFrame, chart
    ("RANK_CELLS", "vanna", "SELECT cell_id, SUM(failures) AS total FROM readings GROUP BY cell_id ORDER BY total DESC "
     "LIMIT 3;\n\n   cell_id  total\n0   CELL_4    308\n1  CELL_18    305\n2  CELL_22    301\n\n[Plotly figure: "
     "bar chart of total by cell_id]", C, "the DataFrame"),
    ("MEAN_MS", "vanna", "SELECT AVG(latency_ms) AS avg_latency FROM links WHERE ts >= '2026-01-02 09:00:00' AND ts < "
     "'2026-01-02 21:00:00';\n\n   avg_latency\n0    19.691203", C, "the DataFrame"),
    ("COUNT_BIG", "vanna", "SELECT COUNT(*) FROM readings WHERE cpu > 80;\n\n   count_star()\n0         15020", I,
     "naive count"),
    # warehouse assistants: JSON result sets
    ("COUNT_BIG", "warehouse_json", '{"sql": "SELECT COUNT(*) AS n FROM readings WHERE cpu > 80 AND ts >= ...", '
     '"result": [{"n": 12345}], "elapsed_ms": 412}', C, "n=12345; elapsed_ms is not an answer"),
    ("MEAN_RPM", "warehouse_json", '{"columns": ["site", "avg_rotor_speed", "window_start"], "rows": [["north", '
     '10.5674, 1767481200000]]}', C, "columns/rows"),
    ("MEAN_RPM", "warehouse_json", '{"columns": ["site", "avg_rotor_speed", "window_start"], "rows": [["north", '
     '11.2, 1767481200000]]}', I, "11.2"),
    ("RANK_CELLS", "warehouse_json", '{"data": [{"cell_id": "CELL_4", "total": 308}, {"cell_id": "CELL_18", "total": '
     '305}, {"cell_id": "CELL_22", "total": 301}], "row_count": 3}', C, "records"),
    ("MAP_ZONE", "warehouse_json", '{"data": [{"zone": "zone_A", "max_h": 88.0, "ts": 1767351600000}, {"zone": "zone_B",'
     ' "max_h": 80.5, "ts": 1767355200000}], "row_count": 2}', C, "records with epoch ms"),
    ("TS_FIRST", "warehouse_json", '{"data": [{"first_critical": "2026-01-02 09:15:00", "sensor": "SENSOR_0031"}]}', C,
     "same instant"),
    # several statistics in one answer
    ("MEAN_MS", "prose", "The mean and maximum latency were 19.69 ms and 88.41 ms respectively.", C, "respectively"),
    ("MEAN_MS", "prose", "The maximum and mean latency were 19.69 ms and 25.10 ms respectively.", I,
     "the mean is 25.10 here"),
    ("MEAN_MS", "prose", "Latency stats: min 3.10 ms, mean 19.69 ms, p95 41.00 ms, max 88.41 ms.", C, "the mean"),
    ("STD_RPM", "prose", "mean = 12.30 rpm, std = 1.15 rpm (n = 144)", C, "std"),
    ("STD_RPM", "prose", "mean = 12.30 rpm, std = 1.32 rpm (n = 144)", I, "std wrong"),
    ("MAX_RPM", "prose", "Rotor speed ranged from 4.2 rpm to 17.1 rpm in that window.", C, "the top of the range"),
    ("KPI_CPU", "markdown_table", "| group | mean_cpu_pct |\n|---|---|\n| affected | 93.10 |\n| unaffected | 41.27 |", C,
     "the unaffected row"),
    ("KPI_CPU", "markdown_table", "| group | mean_cpu_pct |\n|---|---|\n| affected | 41.27 |\n| unaffected | 93.10 |", I,
     "the unaffected row is 93.10"),
    ("PCT_CONV", "markdown_table", "| carted | converted | conversion_rate |\n|---|---|---|\n| 360 | 292 | 0.811 |", I,
     "a fraction, the question asks for a percentage"),
    ("PCT_CONV", "markdown_table", "| carted | converted | conversion_pct |\n|---|---|---|\n| 360 | 292 | 81.1 |", C,
     "percent column"),
    # durations written by code
    ("DUR_CART", "code_result", "```python\n(df.purchase_ts - df.cart_ts).mean()\n```\nTimedelta('0 days 02:10:00')", C,
     "a pandas Timedelta"),
    ("DUR_CART", "code_result", "```python\n(df.purchase_ts - df.cart_ts).mean()\n```\nTimedelta('0 days 01:35:22.800000')",
     I, "the naive value"),
    ("DUR_CART", "prose", "The average is 7800 seconds (about 2.17 hours).", C, "consistent"),
    ("DUR_CRIT", "prose", "Episodes in critical lasted 2.55 hours on average (median 1.90 hours).", C, "the mean"),
    ("DUR_CRIT", "prose", "Episodes in critical lasted 1.90 hours on average.", I, "wrong"),
    # ids and entities in structured output
    ("ENT_TURB", "warehouse_json", '{"result": [{"turbine": "WIND_TURBINE_010", "drop": 4.21}, {"turbine": '
     '"WIND_TURBINE_003", "drop": 3.87}]}', C, "top record"),
    ("ENT_IFACE", "dataframe", "    router interface  loss\n0  RTR_001      eth0   7.9\n1  RTR_001      eth2   7.4", I,
     "top row is eth0"),
    ("LIST_CELLS", "markdown_table", "| cell_id | outage_minutes |\n|---|---|\n| CELL_62 | 14 |\n| CELL_67 | 9 |\n"
     "| CELL_7 | 31 |", C, "the three cells"),
    ("LIST_CELLS", "markdown_table", "| cell_id | outage_minutes |\n|---|---|\n| CELL_62 | 14 |\n| CELL_67 | 9 |", I,
     "CELL_7 missing"),
    ("COUNT_SENSORS", "dataframe", "  sensor_id  n_offline\n0  SENSOR_0003   12\n1  SENSOR_0011    1\n2  SENSOR_0042"
     "    3\n3  SENSOR_0107    7", C, "4 rows"),
    ("COUNT_SENSORS", "dataframe", "   n_sensors  n_readings\n0          4          23", C, "n_sensors"),
    ("COUNT_SENSORS", "dataframe", "   n_sensors  n_readings\n0          5          23", I, "5"),
    # booleans from structured output
    ("BOOL_NO", "warehouse_json", '{"result": [{"any_above_5pct": false, "max_loss": 4.2}]}', C, "false"),
    ("BOOL_NO", "warehouse_json", '{"result": [{"any_above_5pct": true, "max_loss": 7.2}]}', I, "true"),
    ("BOOL_YES", "dataframe", "   any_below\n0       True", C, "True"),
    ("BOOL_RATIO_YES", "warehouse_json", '{"higher": true, "ratio": 3.7, "incident_loss": 7.4, "baseline_loss": 2.0}',
     C, "yes, 3.7"),
    ("BOOL_RATIO_YES", "warehouse_json", '{"higher": true, "ratio": 2.7}', I, "wrong ratio"),
]

HAND_HELD_OUT = [  # written after the grader, before running it on them (a check against over-fitting)
    ("MEAN_TEMP", "prose", "Cold storage averaged 21.38 °C between midnight and noon on 4 January.", C, "21.38"),
    ("MEAN_TEMP", "prose", "The average temperature was 21.4°C.", I, "21.4 is outside ±0.005"),
    ("MEAN_TEMP", "prose", "Across 4,320 readings from 6 sensors, the mean temperature was 21.38 °C.", C, "21.38"),
    ("MEAN_TEMP", "markdown_table", "| zone | sensors | readings | mean_temp_c |\n|---|---|---|---|\n| cold_storage | 6 | "
     "4320 | 21.38 |", C, "the mean column"),
    ("MEAN_TEMP", "json_records", '[{"zone": "cold_storage", "mean_temperature": 23.9, "n": 4320}]', I, "naive"),
    ("SUM_KWH", "prose", "East-site turbines produced 5,123.4 kWh on 5 January.", C, "5123.4"),
    ("SUM_KWH", "prose", "Total energy: 5.1234 MWh", C, "5123.4 kWh in MWh"),
    ("SUM_KWH", "prose", "Total energy: 5,123 kWh", I, "not to 1 decimal"),
    ("SUM_KWH", "dataframe", "   site  total_kwh\n0  east     5123.4", C, "5123.4"),
    ("RATE_ERR", "prose", "There were 342 errors on 6 January, i.e. 14.25 per hour.", C, "the rate"),
    ("RATE_ERR", "prose", "On average 14.25 errors per hour.", C, "14.25"),
    ("RATE_ERR", "prose", "On average 9.50 errors per hour.", I, "naive"),
    ("COUNT_CART", "prose", "The query returned 63 rows — so 63 sessions.", C, "63"),
    ("COUNT_CART", "prose", "I found 63 sessions (5.2% of the 1,204 sessions in those two days).", C, "63"),
    ("COUNT_CART", "markdown_table", "| session_count |\n|---|\n| 63 |", C, "63"),
    ("COUNT_CART", "json_records", '[{"session_count": 63}]', C, "63"),
    ("COUNT_CART", "json_records", '[{"session_count": 64}]', I, "64"),
    ("COUNT_ZERO", "prose", "Nobody did: the maximum was 3 product views per user.", C, "none"),
    ("COUNT_ZERO", "prose", "The count is 0.", C, "0"),
    ("COUNT_ZERO", "prose", "Only USER_1013 viewed products more than 3 times.", I, "one user"),
    ("DUR_PASS", "prose", "The mean time to first offline is 71.88 hours.", I, "71.88 h = 258768 s, 10 s off"),
    ("DUR_PASS", "prose", "Sensors took 258,778 s on average (about 3 days) to first go offline.", C, "258778 s"),
    ("DUR_CART", "markdown_table", "| sessions | mean_minutes_to_purchase |\n|---|---|\n| 412 | 130.0 |", C,
     "130 minutes"),
    ("DUR_CART", "markdown_table", "| sessions | mean_minutes_to_purchase |\n|---|---|\n| 412 | 95.38 |", I, "naive"),
    ("BOOL_YES", "prose", "Yes - SENSOR_0012 and SENSOR_0031 both dipped below 1,008.5 hPa.", C, "yes"),
    ("BOOL_YES", "prose", "Yes, 2 readings did.", C, "yes"),
    ("BOOL_NO", "prose", "No cell exceeded 5% packet loss on 3 January 2026.", C, "no"),
    ("BOOL_NO", "prose", "False.", C, "no"),
    ("BOOL_NO", "prose", "Yes, one cell did (CELL_3, 7.2%).", I, "yes"),
    ("BOOL_RATIO_NO", "prose", "No. Ratio (8 Jan / 7 Jan): 1.15.", C, "no, 1.15"),
    ("BOOL_RATIO_NO", "prose", "No: it rose by a factor of 1.25.", I, "wrong factor"),
    ("ENT_TURB", "prose", "Largest drop: WIND_TURBINE_010 (from 14.02 rpm on 7 January to 9.81 rpm).", C, "010"),
    ("ENT_TURB", "prose", "The answer is WIND_TURBINE_017.", I, "017"),
    ("ENT_HOST", "markdown_table", "| rank | host | peak_cpu |\n|---|---|---|\n| 1 | HOST_07 | 99.2 |\n| 2 | HOST_12 | "
     "97.0 |", C, "rank 1"),
    ("ENT_HOST", "markdown_table", "| rank | host | peak_cpu |\n|---|---|---|\n| 1 | HOST_12 | 99.5 |\n| 2 | HOST_07 | "
     "99.2 |", I, "rank 1 is HOST_12"),
    ("ENT_IFACE", "json", '{"router": "RTR_001", "interface": "eth2", "mean_loss_pct": 7.4}', C, "one record"),
    ("ENT_IFACE", "json", '{"router": "RTR_001", "interface": "eth1", "mean_loss_pct": 7.4}', I, "eth1"),
    ("LIST_CELLS", "prose", "Affected cells: CELL_7, CELL_62, CELL_67.", C, "the three"),
    ("LIST_CELLS", "prose", "Affected cells: CELL_7, CELL_62.", I, "one missing"),
    ("LIST_EMPTY", "prose", "None — every cold_storage sensor stayed online on 9 January.", C, "none"),
    ("MAP_ZONE", "prose", "Max humidity by zone → zone_A: 88.0, zone_B: 80.5", C, "both"),
    ("MAP_ZONE", "prose", "Max humidity by zone → zone_A: 88.0, zone_B: 80.5, zone_C: 79.0", I, "extra zone"),
    ("MAP_TRANS", "json", '{"maintenance->offline": 87, "maintenance->online": 324}', C, "both transitions"),
    ("MAP_TRANS", "prose", "maintenance → offline: 87\nmaintenance → online: 342", I, "online wrong"),
    ("MAP_SITE", "dataframe", "site\nnorth    42.97\nsouth    40.09\nName: curtailed_pct, dtype: float64", C, "Series"),
    ("MAP_SITE", "dataframe", "site\nnorth    0.4297\nsouth    0.4009\nName: curtailed_share, dtype: float64", I,
     "fractions"),
    ("RANK_CELLS", "prose", "Top 3 by failures: CELL_4 (308), CELL_18 (305), CELL_22 (301).", C, "all"),
    ("RANK_CELLS", "prose", "Top 3 by failures: CELL_4 (308), CELL_22 (301), CELL_18 (305).", I, "order"),
    ("RANK_PATHS", "markdown_table", "| path | n_sensors |\n|---|---|\n| operational > warning > operational | 27 |\n"
     "| operational > offline > operational | 8 |\n| operational > maintenance > operational | 5 |", I, "three paths"),
    ("TS_FIRST", "prose", "It happened at 2026-01-02T09:15:00+00:00 (SENSOR_0031).", C, "same"),
    ("TS_FIRST", "prose", "The first one was on 2 January 2026 at 10:15 UTC.", I, "10:15"),
    ("LABEL_PAGE", "prose", "Answer: checkout", C, "checkout"),
    ("LABEL_PAGE", "prose", "Answer: product_detail", I, "another page"),
    ("TABLE_ZONE", "prose", "zone_A: 3\nzone_B: 5", C, "same rows"),
]

HAND = HAND_HELD_OUT + HAND_AGENT_STYLES + HAND_NUMBERS + HAND_COUNTS + HAND_DURATIONS + HAND_BOOLEANS + HAND_ENTITIES + HAND_STRUCTURED + HAND_MISC
