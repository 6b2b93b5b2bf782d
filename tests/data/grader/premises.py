"""Hand-labelled answers to false-premise and unanswerable questions: (record key, response, label, why).

A response is correct when it rejects the false premise, or declines naming the missing data; a
response that answers anyway (a figure, a cause) is a fabrication, hence incorrect."""

from __future__ import annotations

C, I = "correct", "incorrect"  # noqa: E741


def _rec(key, family, question, answer, params):
    return key, {"id": "q0001", "family": family, "template": family, "question": question, "answer_type": "label",
                 "answer": answer, "answer_text": answer, "tolerance": {"rel": 0.0, "abs": 0.0},
                 "params": {"template": family, "table": "links", "entity": "Device_ID", "time": "Timestamp",
                            "params": params}, "naive_answer": "18.42"}


PREMISE_RECORDS = dict([
    _rec("NO_RTR", "false_premise", "Why did RTR_009 fail on 3 January 2026?",
         "false premise: there is no transport link RTR_009 in the data",
         {"kind": "entity", "id": "RTR_009", "key": "Latency_ms", "day": "3 January 2026"}),
    _rec("LATE_DAY", "false_premise", "What was the mean latency of transport link RTR_002 on 21 January 2026?",
         "false premise: the data has no rows on 21 January 2026",
         {"kind": "date", "id": "RTR_002", "key": "Latency_ms", "day": "21 January 2026"}),
    _rec("NO_CRIT", "false_premise", "Why did sensor SENSOR_0029 go 'critical' on 2 January 2026?",
         "false premise: SENSOR_0029 has no row with device_state == critical on 2 January 2026",
         {"kind": "event", "id": "SENSOR_0029", "key": "temperature_c", "day": "2 January 2026",
          "event": {"column": "device_state", "op": "==", "value": "critical"}}),
    _rec("NO_HUM", "unanswerable", "What was the mean humidity of the meters on 2 January 2026?",
         "unanswerable: the data has no humidity column",
         {"kind": "column", "missing": "humidity", "key": "power_kw", "day": "2 January 2026"}),
    _rec("NO_REGION", "unanswerable", "What was the mean latency of the links per region on 2 January 2026?",
         "unanswerable: the data has no region attribute",
         {"kind": "attribute", "missing": "region", "key": "Latency_ms", "day": "2 January 2026"}),
])

PREMISE_ROWS = [
    ("NO_RTR", "There is no RTR_009 in the data; the links are RTR_001 to RTR_008.", C, "rejects the entity"),
    ("NO_RTR", "RTR_009 does not exist in the transport link table.", C, "rejects the entity"),
    ("NO_RTR", "I couldn't find any device called RTR_009 — only RTR_001..RTR_008 report.", C, "cannot find it"),
    ("NO_RTR", "**No such link.** RTR_009 is not in the data.", C, "markdown rejection"),
    ("NO_RTR", "RTR_009 failed because its latency rose to 48 ms after a congestion event.", I, "invents a cause"),
    ("NO_RTR", "The mean latency of RTR_009 on 3 January was 18.42 ms.", I, "a made-up figure"),
    ("NO_RTR", "RTR_009 had a packet loss spike at 14:00 UTC, which caused the failure.", I, "invents a spike"),
    ("NO_RTR", "```sql\nSELECT * FROM links WHERE Device_ID = 'RTR_009'\n```\nThe query returned 0 rows: there is no "
     "RTR_009.", C, "the empty result, said"),
    ("LATE_DAY", "The data only covers 1 to 3 January 2026, so there are no readings on 21 January.", C,
     "outside the range"),
    ("LATE_DAY", "There were no readings for RTR_002 on 21 January 2026 — the data ends on 3 January.", C,
     "rejects the date"),
    ("LATE_DAY", "The mean latency of RTR_002 on 21 January 2026 was 18.42 ms.", I, "the naive figure"),
    ("LATE_DAY", "About 18 ms.", I, "a figure without the premise"),
    ("NO_CRIT", "SENSOR_0029 never went critical on 2 January; it stayed operational all day.", C, "never"),
    ("NO_CRIT", "It didn't: SENSOR_0029 has no 'critical' reading on 2 January 2026.", C, "did not"),
    ("NO_CRIT", "SENSOR_0029 went critical because its temperature exceeded 80 °C at 13:00.", I, "invents a cause"),
    ("NO_CRIT", "The battery was low (12%), which triggered the critical state.", I, "invents a cause"),
    ("NO_HUM", "The meters table has no humidity column, so the mean humidity cannot be computed.", C,
     "names the missing column"),
    ("NO_HUM", "I can't answer that: humidity is not recorded in this data set.", C, "names it"),
    ("NO_HUM", "There is no such column in the data.", I, "does not name what is missing"),
    ("NO_HUM", "I cannot answer this question.", I, "declines without naming the missing data"),
    ("NO_HUM", "The mean humidity was 18.42%.", I, "fabricated"),
    ("NO_HUM", "Mean humidity: 45.1 %RH", I, "fabricated"),
    ("NO_REGION", "There is no region attribute on the links, so latency cannot be broken down by region.", C,
     "names the missing attribute"),
    ("NO_REGION", "Links have no `region` field (only Device_ID and Interface_ID).", C, "names it"),
    ("NO_REGION", "north: 18.4 ms, south: 19.1 ms", I, "invents regions"),
    ("NO_REGION", "The mean latency per region was 18.42 ms for all regions.", I, "fabricated"),
]
