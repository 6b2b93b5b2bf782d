"""A labelled set of agent responses in the forms real agents produce.

Each case: (record fields, response, expected label) where the label is correct / incorrect /
runtime_error, or 'undecided' when the rules must not pretend to know (they go to the judge)."""

from __future__ import annotations


def rec(answer_type, answer, tol=(0.0, 0.0), answer_text="", question="", naive=None, template="t"):
    return {"id": "q0001", "question": question or "What is it?", "answer_type": answer_type, "answer": answer,
            "tolerance": {"rel": tol[0], "abs": tol[1]}, "answer_text": answer_text, "naive_answer": naive,
            "template": template}


MEAN = rec("number", 19.6912, (0.0, 0.005), "19.69 ms",
           "What was the mean latency (ms) over all readings of links from 09:00 UTC on 2 January 2026 "
           "(included) up to 21:00 UTC on 2 January 2026 (excluded)? Round to 2 decimal places.", naive=25.1)
COUNT = rec("integer", 63, (0.0, 0.0), "63",
            "How many sessions reached 'cart' at least 3 times between 2026-01-02 and 2026-01-03?", naive=118)
BIG = rec("integer", 12345, (0.0, 0.0), "12,345", "How many readings had cpu above 80 percent?")
PCT = rec("number", 81.1111, (0.0, 0.05), "81.1 percent", "What share of sessions converted, in percent? Round to 1 decimal.")
DUR = rec("duration", 7800.0, (0.0, 1.0), "2 hr 10 min", "What is the mean time from first cart to purchase? Round to the nearest second.")
DUR2 = rec("duration", 258778.0, (0.0, 1.0), "2 d 23 hr 52 min 58 sec", "Mean time between? Round to the nearest second.", naive=5722.8)
YES = rec("boolean", True, question="Did any sensor report a reading below 1,008.5 hPa? Answer yes or no.")
NO = rec("boolean", False, question="Did any cell exceed 5% packet loss on 3 January? Answer yes or no.")
RATIO = rec("boolean", {"value": True, "ratio": 3.7}, (0.001, 0.005), "Yes (ratio 3.70)",
            "During the outage on 6 January, was packet loss of link L1 higher than the same hours on 5 January, and by "
            "what factor? Round the factor to 2 decimal places.")
ENT = rec("entity", "SENSOR_0065", question="Which sensor had the highest temperature during the incident?")
LIST = rec("entity_list", ["CELL_62", "CELL_67", "CELL_7"], question="Which cells of zone 3 had an outage?")
MAP = rec("mapping", {"zone_A": 88.0, "zone_B": 80.5}, (0.0, 0.05), "zone_A=88, zone_B=80.5",
          "For each zone, what was the highest humidity? Round to 1 decimal.")
DMAP = rec("mapping", {"v1": 7800.0, "v2": 3600.0}, (0.0, 0.5), "v1=7,800, v2=3,600",
           "For each firmware, the mean episode duration in seconds?", template="state_duration")
RANK = rec("ranking", [["CELL_4", 308.0], ["CELL_18", 305.0], ["CELL_22", 301.0]], (0.0, 0.5),
           "1. CELL_4 (308), 2. CELL_18 (305), 3. CELL_22 (301)", "Which 3 cells had the most failures, and how many each?")
PATHS = rec("ranking", [["operational > warning > operational", 27], ["operational > offline > operational", 8]],
            (0.0, 0.5), "", "Which 2 paths were followed by the most sensors, and by how many sensors each?")
TS = rec("timestamp", "2026-01-02T09:15:00Z", (0.0, 0.0), question="When did the first critical reading happen?")
LABEL = rec("label", "checkout", question="Which page has the highest exit rate?")
TABLE = rec("table", {"columns": ["zone", "n"], "rows": [["zone_A", 3], ["zone_B", 5]]}, (0.0, 0.0))

CASES = [
    # numbers with units, separators, buried in explanations
    (MEAN, "19.69 ms", "correct"),
    (MEAN, "The mean latency was **19.69 ms**.", "correct"),
    (MEAN, "Between 09:00 and 21:00 UTC on 2 January 2026 the mean latency over 1,212 readings was 19.69 ms.", "correct"),
    (MEAN, "Answer: 19.69", "correct"),
    (MEAN, "0.01969 s", "correct"),
    (MEAN, "19.7 ms", "incorrect"),
    (MEAN, "25.10 ms", "incorrect"),
    (MEAN, "The average is approximately 20 milliseconds.", "incorrect"),
    (MEAN, '{"answer": 19.69, "unit": "ms"}', "correct"),
    (MEAN, "I computed it with SQL:\n```sql\nSELECT avg(latency) FROM links\n```\nResult: 19.69", "correct"),
    (MEAN, "Mean latency: 19.691 ms (rounded 19.69 ms)", "correct"),
    (MEAN, "19,69 ms", "incorrect"),
    (COUNT, "63 sessions", "correct"),
    (COUNT, "63", "correct"),
    (COUNT, "There were 63 sessions that reached the cart 3 or more times.", "correct"),
    (COUNT, "A total of **63** sessions.", "correct"),
    (COUNT, "118 sessions", "incorrect"),
    (COUNT, "64", "incorrect"),
    (COUNT, "Out of 1,204 sessions, 63 reached the cart at least 3 times.", "correct"),
    (COUNT, "Out of 1,204 sessions, 63 reached the cart at least 3 times.\n\nAnswer: 63", "correct"),
    (COUNT, "63.0", "correct"),
    (COUNT, "sixty-three", "correct"),
    (rec("integer", 3, question="How many sessions reached 'cart' at least 3 times?"),
     "Of the 40 sessions, 3 reached the cart at least 3 times.", "correct"),
    (rec("integer", 3, question="How many sessions reached 'cart' at least 3 times?"), "3 sessions", "correct"),
    (COUNT, "There were no such sessions.", "incorrect"),
    (rec("integer", 0, question="How many hosts crashed?"), "No host crashed.", "correct"),
    (MEAN, "I found no incident in the data.", "incorrect"),
    (RANK, "I found no incident in the data.", "incorrect"),
    (MAP, "No data for these zones.", "incorrect"),
    (BIG, "12,345 readings", "correct"),
    (BIG, "12345", "correct"),
    (BIG, "12.3k readings", "incorrect"),
    (BIG, "about 12 thousand", "incorrect"),
    (PCT, "81.1%", "correct"),
    (PCT, "81.1 percent", "correct"),
    (PCT, "The conversion rate is 81.11 %.", "correct"),
    (PCT, "0.811", "incorrect"),
    (PCT, "81.2%", "incorrect"),
    # durations
    (DUR, "about 2 hours 10 minutes", "correct"),
    (DUR, "2h 10m", "correct"),
    (DUR, "2 hr 10 min", "correct"),
    (DUR, "02:10:00", "correct"),
    (DUR, "130 minutes", "correct"),
    (DUR, "7800 seconds", "correct"),
    (DUR, "7,800 s", "correct"),
    (DUR, "PT2H10M", "correct"),
    (DUR, "2.5 hours", "incorrect"),
    (DUR, "The mean time is 2 hours, 10 minutes and 1 second.", "correct"),
    (DUR, "2 hours 11 minutes", "incorrect"),
    (DUR, "It takes 45 minutes on average.", "incorrect"),
    (DUR2, "2 d 23 hr 52 min 58 sec", "correct"),
    (DUR2, "2 days, 23:52:58", "correct"),
    (DUR2, "71 hours 52 minutes 58 seconds", "correct"),
    (DUR2, "1 hr 35 min 23 sec", "incorrect"),
    (DUR2, "about 3 days", "incorrect"),
    # booleans with justification
    (YES, "Yes", "correct"),
    (YES, "Yes — sensor SENSOR_0012 recorded 1,004.2 hPa.", "correct"),
    (YES, "No.", "incorrect"),
    (YES, "True", "correct"),
    (YES, "There were no readings below that threshold.", "incorrect"),
    (NO, "No, none of the cells exceeded 5% packet loss.", "correct"),
    (NO, "Yes, CELL_3 reached 7.2%.", "incorrect"),
    (NO, "The data shows that no cell exceeded the threshold.", "correct"),
    (NO, "**No**", "correct"),
    (NO, "The answer is No.", "correct"),
    (YES, "Based on the data, Yes.", "correct"),
    (RATIO, "Based on the data, No (ratio 0.9)", "incorrect"),
    (COUNT, "**63**", "correct"),
    (RATIO, "Yes — 3.7x higher", "correct"),
    (RATIO, "Yes, packet loss was 3.70 times higher than the baseline.", "correct"),
    (RATIO, "Yes, by a factor of 3.70.", "correct"),
    (RATIO, "Yes — 3.2x more packet loss", "incorrect"),
    (RATIO, "No, it was lower.", "incorrect"),
    (RATIO, "Yes.", "incorrect"),
    # entities and lists
    (ENT, "SENSOR_0065", "correct"),
    (ENT, "The hottest sensor was sensor_0065 at 95.4 °C.", "correct"),
    (ENT, "SENSOR_0004", "incorrect"),
    (ENT, "SENSOR_65", "correct"),
    (ENT, "SENSOR_0004 peaked first, but SENSOR_0065 had the highest value.", "correct"),
    (ENT, "SENSOR_0004 peaked first.\n\nFinal answer: SENSOR_0065", "correct"),
    (LIST, "CELL_62, CELL_67, CELL_7", "correct"),
    (LIST, "CELL_7, CELL_62 and CELL_67", "correct"),
    (LIST, "- CELL_62\n- CELL_67\n- CELL_7", "correct"),
    (LIST, '["CELL_62", "CELL_67", "CELL_7"]', "correct"),
    (LIST, "CELL_62, CELL_67", "incorrect"),
    (LIST, "CELL_62, CELL_67, CELL_7, CELL_9", "incorrect"),
    (LIST, "| cell |\n|---|\n| CELL_62 |\n| CELL_67 |\n| CELL_7 |", "correct"),
    # mappings
    (MAP, "zone_A=88, zone_B=80.5", "correct"),
    (MAP, "| zone | max humidity |\n|---|---|\n| zone_A | 88.0 |\n| zone_B | 80.5 |", "correct"),
    (MAP, "zone A: 88.0 %RH; zone B: 80.5 %RH", "correct"),
    (MAP, '{"zone_A": 88.0, "zone_B": 80.5}', "correct"),
    (MAP, "zone_A=88, zone_B=81.5", "incorrect"),
    (MAP, "zone_A=88", "incorrect"),
    (rec("mapping", {"2026-01-02T09:00:00Z": 5, "2026-01-02T10:00:00Z": 7}),
     "| hour | events |\n|---|---|\n| 2026-01-02T09:00:00Z | 5 |\n| 2026-01-02T10:00:00Z | 7 |", "correct"),
    (rec("mapping", {"2026-01-02T09:00:00Z": 5, "2026-01-02T10:00:00Z": 7}),
     "2026-01-02T09:00:00Z: 5, 2026-01-02T10:00:00Z: 8", "incorrect"),
    (DMAP, "v1: 2 hours 10 minutes, v2: 1 hour", "correct"),
    (DMAP, "v1=7800, v2=3600", "correct"),
    (DMAP, "v1: 2 hours, v2: 1 hour", "incorrect"),
    # rankings
    (RANK, "1. CELL_4 (308)\n2. CELL_18 (305)\n3. CELL_22 (301)", "correct"),
    (RANK, "CELL_4 (308), CELL_18 (305), CELL_22 (301)", "correct"),
    (RANK, "| rank | cell | failures |\n|---|---|---|\n| 1 | CELL_4 | 308 |\n| 2 | CELL_18 | 305 |\n| 3 | CELL_22 | 301 |", "correct"),
    (RANK, "1. CELL_18 (305)\n2. CELL_4 (308)\n3. CELL_22 (301)", "incorrect"),
    (RANK, "1. CELL_4 (308)\n2. CELL_18 (305)\n3. CELL_9 (301)", "incorrect"),
    (RANK, "1. CELL_4 (308)\n2. CELL_18 (300)\n3. CELL_22 (301)", "incorrect"),
    (RANK, "1. CELL_4\n2. CELL_18\n3. CELL_22", "incorrect"),
    (PATHS, "1. operational → warning → operational: 27 sensors\n2. operational → offline → operational: 8 sensors", "correct"),
    (PATHS, "operational -> warning -> operational (27); operational -> offline -> operational (8)", "correct"),
    (PATHS, "1. operational > offline > operational: 8\n2. operational > warning > operational: 27", "incorrect"),
    (PATHS, "1. operational > operational > operational: 30787\n2. offline > offline > offline: 12", "incorrect"),
    # timestamps, labels, tables
    (TS, "2026-01-02T09:15:00Z", "correct"),
    (TS, "The first critical reading was at 2026-01-02 09:15:00 UTC.", "correct"),
    (TS, "2026-01-02T09:30:00Z", "incorrect"),
    (LABEL, "checkout", "correct"),
    (LABEL, "Checkout.", "correct"),
    (LABEL, "cart", "incorrect"),
    (TABLE, "| zone | n |\n|---|---|\n| zone_A | 3 |\n| zone_B | 5 |", "correct"),
    (TABLE, "| zone | n |\n|---|---|\n| zone_B | 5 |\n| zone_A | 3 |", "correct"),
    (TABLE, "| zone | n |\n|---|---|\n| zone_A | 3 |", "incorrect"),
    (TABLE, '{"columns": ["zone", "n"], "rows": [["zone_A", 3], ["zone_B", 6]]}', "incorrect"),
    # runtime errors: empty, refusal, garbage
    (COUNT, "", "runtime_error"),
    (COUNT, "   \n", "runtime_error"),
    (COUNT, "I'm sorry, but I cannot access the database.", "runtime_error"),
    (COUNT, "I can't answer that question with the available tools.", "runtime_error"),
    (COUNT, "Traceback (most recent call last):\n  File \"agent.py\", line 3\nKeyError: 'x'", "runtime_error"),
    (COUNT, "%%$#@!!~~^^&&**((", "runtime_error"),
    (NO, "No idea.", "runtime_error"),
    (NO, "I don't know.", "runtime_error"),
    (COUNT, "Unknown", "runtime_error"),
]
