"""Programmatic part of the labelled grader corpus: hand-written response templates (the shapes real
data agents produce: prose, markdown tables, JSON records with epoch-ms dates, DataFrame printouts,
code + output, lists of ids, charts only, clarifying questions, hedges) filled with a right or a wrong
value. The label logic is explicit per template: a right value stated as the answer is ``correct``;
a wrong value, a hedge between values, a chart or a question back is ``incorrect``; a refusal is
``runtime_error``. Labels never come from running the grader.

``python tests/data/grader/generate.py`` rewrites corpus.jsonl (with the hand-written rows)."""

from __future__ import annotations

import json
from pathlib import Path

from records import RECORDS

HERE = Path(__file__).parent
EPOCH_0902 = 1767344400000  # 2026-01-02T09:00:00Z in ms
EPOCH_0921 = 1767387600000


def _num(key, right, wrongs, unit, measure, col):
    """Number/integer templates: ``right`` string value, ``wrongs`` [(value, reason)], ``unit`` word."""
    u = f" {unit}" if unit else ""
    T = [  # (shape, template, takes_value, label_if_right)
        ("prose", "The {m} was {v}{u}.", True),
        ("prose", "Based on the query results, the {m} is approximately {v}{u}.", True),
        ("prose_echo", "Rounded as asked, the {m} for that window (2 January 2026, 09:00 to 21:00 UTC) is {v}{u}.", True),
        ("bold", "I filtered the readings to the requested window and aggregated them.\n\n**{v}{u}**", True),
        ("bare", "{v}", True),
        ("markdown_table", "| {c} |\n|---|\n| {v} |", True),
        ("markdown_table", "Here is the result:\n\n| window_hours | {c} |\n|---:|---:|\n| 12 | {v} |", True),
        ("json_records", '[{{"window_start": ' + str(EPOCH_0902) + ', "window_end": ' + str(EPOCH_0921)
         + ', "{c}": {v}}}]', True),
        ("json_records", '{{"data": [{{"ts": "2026-01-02T09:00:00Z", "{c}": {v}}}], "row_count": 1}}', True),
        ("dataframe", "   {c}\n0  {v}", True),
        ("code_result", "```python\nres = con.execute(\"SELECT round(avg(x), 2) AS {c} FROM t WHERE ts >= "
         "'2026-01-02 09:00'\").df()\nprint(res)\n```\n```\n   {c}\n0  {v}\n```", True),
        ("code_result", "```sql\nSELECT ROUND(AVG(x), 2) FROM readings WHERE ts >= '2026-01-02 09:00:00' "
         "AND ts < '2026-01-02 21:00:00' LIMIT 100;\n```\nResult: {v}", True),
        ("sql_agent", "I ran `SELECT COUNT(*), AVG(x) FROM readings WHERE ts BETWEEN '2026-01-02 09:00' AND "
         "'2026-01-02 21:00'`, which returned (1212, {v}).\n\nFinal Answer: {v}{u}", True),
        ("hedge", "It is either {v}{u} or {alt}{u}, depending on whether missing readings are counted.", False),
        ("several_candidates", "Candidate values: {v}{u} (all readings) and {alt}{u} (deduplicated). I could not "
         "decide which one you want.", False),
    ]
    rows = []
    for shape, t, _ in T:
        for value, label, reason in [(right, "correct", "states the expected value"),
                                     *[(w, "incorrect", r) for w, r in wrongs]]:
            alt = wrongs[0][0]
            lab, why = (label, reason)
            if shape in ("hedge", "several_candidates"):
                lab, why = "incorrect", "hedges between several values"
                if value != right:
                    continue
            v = value.replace(",", "") if shape in ("json_records", "dataframe", "code_result") else value
            rows.append((key, shape, t.format(m=measure, v=v, u=u, c=col, alt=alt), lab, why))
    rows += [
        (key, "chart_only", f"![{measure}](figures/{col}.png)\n\nThe chart above shows the {measure} over time.",
         "incorrect", "only a chart, no value stated"),
        (key, "clarifying_question", f"Do you want the {measure} per entity or over all readings together?",
         "incorrect", "asks a question back instead of answering"),
        (key, "refusal", "I'm sorry, but I can't access the database with my current tools.", "runtime_error",
         "refuses"),
    ]
    return rows


def _numbers():
    out = []
    out += _num("MEAN_MS", "19.69", [("25.10", "the naive value"), ("19.72", "wrong value"),
                                     ("0.02", "wrong value (seconds written without unit)")],
                "ms", "mean latency", "avg_latency_ms")
    out += _num("MEAN_RPM", "10.57", [("11.02", "wrong value"), ("10.75", "wrong value")], "rpm",
                "mean rotor speed", "avg_rotor_speed")
    out += _num("STD_RPM", "1.15", [("1.32", "wrong value (population vs sample)"), ("2.41", "wrong value")],
                "rpm", "standard deviation of rotor speed", "std_rotor_speed")
    out += _num("KPI_CPU", "41.27", [("44.90", "wrong value (affected hosts included)"), ("41.20", "wrong value")],
                "%", "mean cpu", "avg_cpu_pct")
    out += _num("PCT_CONV", "81.1", [("0.811", "a fraction where a percentage was asked"), ("271.0", "the naive value"),
                                     ("79.4", "wrong value")], "%", "conversion rate", "conversion_pct")
    out += _num("MEAN_TEMP", "21.38", [("23.90", "the naive value"), ("21.83", "digits swapped")], "°C",
                "mean temperature", "avg_temperature_c")
    out += _num("SUM_KWH", "5,123.4", [("5,132.4", "wrong value"), ("51.234", "wrong value")], "kWh",
                "total energy", "total_energy_kwh")
    out += _num("RATE_ERR", "14.25", [("9.50", "the naive rate"), ("342", "the count, not the rate")], "per hour",
                "mean error rate", "errors_per_hour")
    out += _num("COUNT_TRIG", "57", [("11196", "the naive count"), ("58", "off by one")], "readings",
                "number of matching readings", "n_readings")
    out += _num("COUNT_CART", "63", [("118", "the naive count"), ("64", "off by one")], "sessions",
                "number of sessions", "n_sessions")
    out += _num("COUNT_BIG", "12,345", [("15,020", "the naive count"), ("12,354", "wrong value")], "readings",
                "number of readings", "cnt")
    return out


def _units():
    """Right and wrong units, and units only in headers."""
    R = []
    for text, lab, why in [
        ("0.01969 s", "correct", "the expected value in seconds"),
        ("19691.2 µs", "correct", "the expected value in microseconds"),
        ("19.69 s", "incorrect", "the right digits in the wrong unit"),
        ("0.01969 ms", "incorrect", "seconds written as milliseconds"),
        ("| avg_latency_s |\n|---|\n| 0.01969 |", "correct", "seconds in the header"),
        ("| avg_latency_seconds |\n|---|\n| 19.69 |", "incorrect", "the header says seconds"),
        ("The mean latency was 19.69 milliseconds.", "correct", "same unit spelled out"),
    ]:
        R.append(("MEAN_MS", "wrong_units" if lab == "incorrect" else "units", text, lab, why))
    for text, lab, why in [
        ("2.55", "correct", "a bare number in the unit the question asks (hours)"),
        ("2.55 hours", "correct", "hours"), ("2 h 33 min", "correct", "hours and minutes"),
        ("9180 seconds", "correct", "seconds"), ("153 minutes", "correct", "minutes"),
        ("| avg_hours_in_critical |\n|---|\n| 2.55 |", "correct", "the unit is in the header"),
        ("   avg_hours_in_critical\n0                   2.55", "correct", "the unit is in the header"),
        ('[{"host_group": "all", "avg_hours_in_critical": 2.55}]', "correct", "the unit is in the key"),
        ("| avg_minutes_in_critical |\n|---|\n| 2.55 |", "incorrect", "2.55 minutes"),
        ("2.55 minutes", "incorrect", "the right digits in the wrong unit"),
        ("3.10 hours", "incorrect", "wrong value"), ("| avg_hours_in_critical |\n|---|\n| 3.1 |", "incorrect", "wrong"),
        ("The average critical episode lasted 2.55 hours (9,180 s) across 14 episodes.", "correct", "consistent"),
    ]:
        R.append(("DUR_CRIT", "wrong_units" if "unit" in why and lab == "incorrect" else "units", text, lab, why))
    return R


def _durations():
    R = []
    right = ["about 2 hours 10 minutes", "2h 10m", "02:10:00", "130 minutes", "7800 seconds", "7,800 s", "PT2H10M",
             "The mean time from first cart to first purchase is 2 hours, 10 minutes.", "**2 hr 10 min**",
             "| avg_seconds |\n|---|\n| 7800.0 |", "   avg_minutes\n0        130.0",
             '[{"avg_time_to_purchase": "2:10:00", "sessions": 412}]', "0 days 02:10:00"]
    wrong = [("2.5 hours", "wrong value"), ("1 hr 35 min", "the naive value"), ("45 minutes", "wrong value"),
             ("| avg_seconds |\n|---|\n| 5722.8 |", "the naive value"), ("2 hours 11 minutes", "wrong value"),
             ("0 days 01:35:22", "the naive value")]
    R += [("DUR_CART", "duration", t, "correct", "states 2 h 10 min") for t in right]
    R += [("DUR_CART", "duration", t, "incorrect", w) for t, w in wrong]
    R += [("DUR_PASS", "duration", t, "correct", "states 258778 s") for t in
          ["2 d 23 hr 52 min 58 sec", "2 days, 23:52:58", "71 hours 52 minutes 58 seconds", "258,778 seconds",
           "2 days 23:52:58", "| mean_seconds |\n|---|\n| 258778 |"]]
    R += [("DUR_PASS", "duration", t, "incorrect", "wrong value") for t in
          ["about 3 days", "1 hr 35 min 23 sec", "2 days 22:52:58", "258 seconds"]]
    return R


def _lists_and_counts():
    ids = ["SENSOR_0003", "SENSOR_0011", "SENSOR_0042", "SENSOR_0107"]
    R = []

    def shapes(lst):
        return [("id_list", ", ".join(lst)), ("id_list", "\n".join(f"- {x}" for x in lst)),
                ("json_records", json.dumps([{"sensor_id": x, "first_offline": EPOCH_0902 + 60000 * i}
                                             for i, x in enumerate(lst)])),
                ("markdown_table", "| sensor_id | went_offline |\n|---|---|\n"
                 + "\n".join(f"| {x} | 1 |" for x in lst)),
                ("dataframe", "     sensor_id\n" + "\n".join(f"{i}  {x}" for i, x in enumerate(lst))),
                ("id_list", "The sensors that went offline were " + ", ".join(lst[:-1]) + f" and {lst[-1]}.")]
    for shape, text in shapes(ids):
        R.append(("COUNT_SENSORS", shape, text, "correct", "lists exactly 4 sensors"))
    for shape, text in shapes(ids[:3]):
        R.append(("COUNT_SENSORS", shape, text, "incorrect", "lists 3 sensors, expected 4"))
    for shape, text in shapes([*ids, "SENSOR_0201"]):
        R.append(("COUNT_SENSORS", shape, text, "incorrect", "lists 5 sensors, expected 4"))
    R += [("COUNT_SENSORS", "prose", "4 sensors: SENSOR_0003, SENSOR_0011, SENSOR_0042 and SENSOR_0107.", "correct",
           "states 4"),
          ("COUNT_SENSORS", "id_list", "HUM_149, HUM_150, HUM_203, HUM_388", "correct", "4 ids (digits are not values)"),
          ("COUNT_SENSORS", "id_list", "HUM_149\nHUM_150\nHUM_203", "incorrect", "3 ids")]
    cells = ["CELL_62", "CELL_67", "CELL_7"]
    for shape, text in shapes(cells):
        R.append(("LIST_CELLS", shape, text.replace("sensor_id", "cell_id"), "correct", "the expected cells"))
    for shape, text in shapes(cells[:2]):
        R.append(("LIST_CELLS", shape, text.replace("sensor_id", "cell_id"), "incorrect", "a cell is missing"))
    for shape, text in shapes([*cells, "CELL_9"]):
        R.append(("LIST_CELLS", shape, text.replace("sensor_id", "cell_id"), "incorrect", "an extra cell"))
    for text in ["None of them.", "[]", "No sensors in cold_storage went offline on 9 January 2026.",
                 "There are no such sensors.", "Empty DataFrame\nColumns: [sensor_id]\nIndex: []"]:
        R.append(("LIST_EMPTY", "empty", text, "correct", "nothing, as expected"))
    R += [("LIST_EMPTY", "id_list", "SENSOR_0004", "incorrect", "names a sensor, expected none"),
          ("LIST_EMPTY", "id_list", '["SENSOR_0004", "SENSOR_0019"]', "incorrect", "names sensors, expected none")]
    for text in ["0", "No users viewed products more than 3 times in that period.", "[]",
                 "There were 0 such users.", "None.", "Empty DataFrame\nColumns: [user_id, views]\nIndex: []",
                 "| n_users |\n|---|\n| 0 |", '[{"n_users": 0}]', "No user had more than 3 product views.",
                 "Zero users."]:
        R.append(("COUNT_ZERO", "empty" if "[" in text or "Empty" in text else "prose", text, "correct", "none = 0"))
    for text in ["4 users", "3", "| n_users |\n|---|\n| 4 |", "USER_1013 and USER_2210 viewed products more than 3 "
                 "times."]:
        R.append(("COUNT_ZERO", "prose", text, "incorrect", "a non-zero count"))
    return R


def _booleans():
    R = []
    for t in ["Yes", "Yes — SENSOR_0012 recorded 1,004.2 hPa.", "True", "**Yes.** The minimum was 1,004.2 hPa.",
              "| any_below |\n|---|\n| True |", "   any_below\n0       True", '[{"any_below": true, "min_pressure": '
              '1004.2}]', "Yes, there is at least one reading below 1,008.5 hPa (SENSOR_0012, 1,004.2 hPa)."]:
        R.append(("BOOL_YES", "boolean", t, "correct", "yes"))
    for t in ["No.", "False", "No, the lowest reading was 1,009.1 hPa.", "I think the answer is 42.",
              "| any_below |\n|---|\n| False |", "There were no readings below that threshold."]:
        R.append(("BOOL_YES", "boolean", t, "incorrect", "no, or not a yes/no answer"))
    for t in ["No", "No, none of the cells exceeded 5% packet loss.", "**No**", "The answer is No.",
              "No — the highest packet loss on 3 January was 4.2%.", '{"exceeded": false}']:
        R.append(("BOOL_NO", "boolean", t, "correct", "no"))
    for t in ["Yes, CELL_3 reached 7.2%.", "I think the answer is 42", "True", "Yes."]:
        R.append(("BOOL_NO", "boolean", t, "incorrect", "yes, or not a yes/no answer"))
    for t in ["No (ratio 1.15)", "No — it was higher: the ratio is 1.15.", "No. Ratio: 1.148",
              "No, the mean was 1.15 times the 7 January mean.", '{"lower": false, "ratio": 1.15}',
              "| lower | ratio |\n|---|---|\n| False | 1.15 |"]:
        R.append(("BOOL_RATIO_NO", "yes_no_with_figure", t, "correct", "no, with the right ratio"))
    for t in [("No (ratio 1.25)", "wrong ratio"), ("Yes, by a factor of 1.15", "wrong yes/no"),
              ("No.", "the factor is missing"), ("Yes (ratio 0.87)", "wrong yes/no and ratio"),
              ("| lower | ratio |\n|---|---|\n| True | 0.87 |", "wrong yes/no")]:
        R.append(("BOOL_RATIO_NO", "yes_no_with_figure", t[0], "incorrect", t[1]))
    for t in ["Yes — 3.7x higher", "Yes, packet loss was 3.70 times higher than the baseline.",
              "Yes, by a factor of 3.70.", "Yes (ratio 3.70)"]:
        R.append(("BOOL_RATIO_YES", "yes_no_with_figure", t, "correct", "yes with the right factor"))
    for t in ["Yes — 3.2x more packet loss", "No, it was lower.", "Yes."]:
        R.append(("BOOL_RATIO_YES", "yes_no_with_figure", t, "incorrect", "wrong or missing factor"))
    return R


def corpus_rows():
    """Every generated row, as corpus dicts."""
    rows = _numbers() + _units() + _durations() + _lists_and_counts() + _booleans()
    from structured_rows import structured_rows

    rows += structured_rows()
    return [_row(*r, source="template") for r in rows]


def _row(key, shape, response, label, reason, source):
    r = RECORDS[key]
    return {"record": key, "question": r["question"], "answer_type": r["answer_type"], "expected": r["answer"],
            "answer_text": r["answer_text"], "tolerance": r["tolerance"], "template": r["template"],
            "naive_answer": r["naive_answer"], "response": response, "label": label, "reason": reason,
            "shape": shape, "source": source}


def main() -> None:
    from hand_written import HAND

    rows = corpus_rows() + [_row(*r, source="hand") for r in HAND]
    (HERE / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(len(rows), "rows;", sum(r["source"] == "hand" for r in rows), "hand-written")


if __name__ == "__main__":
    main()
