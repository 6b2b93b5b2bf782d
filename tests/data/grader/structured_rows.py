"""Generated corpus rows for structured answers: entities (single and composite), mappings (tables,
JSON, DataFrame/Series printouts, prose, "respectively", extra keys), rankings, timestamps, labels and
tables. Each template states its label and why."""

from __future__ import annotations

import json

EPOCH = 1767571200000  # 2026-01-05T00:00:00Z in ms


def _entities():
    R = []
    good = ["WIND_TURBINE_010", "The largest drop was at WIND_TURBINE_010 (-4.21 rpm).",
            "| turbine_id | drop_rpm |\n|---|---|\n| WIND_TURBINE_010 | 4.21 |\n| WIND_TURBINE_003 | 3.87 |\n"
            "| WIND_TURBINE_017 | 2.02 |",
            "          turbine_id  drop_rpm\n0  WIND_TURBINE_010      4.21\n1  WIND_TURBINE_003      3.87",
            json.dumps([{"turbine_id": "WIND_TURBINE_010", "drop": 4.21, "ts": EPOCH},
                        {"turbine_id": "WIND_TURBINE_003", "drop": 3.87, "ts": EPOCH}]),
            "wind_turbine_10", "**WIND_TURBINE_010** had the largest drop; WIND_TURBINE_003 was second.",
            "WIND_TURBINE_003 dropped early, but the largest drop was WIND_TURBINE_010."]
    bad = ["WIND_TURBINE_003", "| turbine_id | drop_rpm |\n|---|---|\n| WIND_TURBINE_003 | 4.40 |\n"
           "| WIND_TURBINE_010 | 4.21 |", "The largest drop was at WIND_TURBINE_017 (-5.02 rpm).",
           json.dumps([{"turbine_id": "WIND_TURBINE_017", "drop": 5.02}, {"turbine_id": "WIND_TURBINE_010", "drop": 4.21}])]
    R += [("ENT_TURB", "entity", t, "correct", "names WIND_TURBINE_010 as the answer") for t in good]
    R += [("ENT_TURB", "entity", t, "incorrect", "another turbine is the answer given") for t in bad]
    R += [("ENT_TURB", "several_candidates", "It is WIND_TURBINE_010 or WIND_TURBINE_003; their drops are within "
           "0.3 rpm of each other.", "incorrect", "hedges between two turbines")]
    R += [("ENT_HOST", "entity", t, "correct", "HOST_07") for t in
          ["HOST_07", "HOST_07 peaked at 99.2%.", "| host | peak_cpu |\n|---|---|\n| HOST_07 | 99.2 |\n| HOST_12 | 97.0 |",
           '{"host": "HOST_07", "peak_cpu": 99.2, "at": 1767679200000}', "host_07"]]
    R += [("ENT_HOST", "entity", t, "incorrect", "another host") for t in
          ["HOST_12", "| host | peak_cpu |\n|---|---|\n| HOST_12 | 99.5 |\n| HOST_07 | 99.2 |", "HOST_70"]]
    comp_good = ["RTR_001/eth2", "Router RTR_001, interface eth2 (mean packet loss 7.4%).",
                 "| router | interface | loss_pct |\n|---|---|---|\n| RTR_001 | eth2 | 7.4 |\n| RTR_003 | eth0 | 5.1 |",
                 json.dumps([{"router": "RTR_001", "interface": "eth2", "loss": 7.4},
                             {"router": "RTR_003", "interface": "eth0", "loss": 5.1}]),
                 "  router interface  loss_pct\n0  RTR_001      eth2       7.4\n1  RTR_003      eth0       5.1"]
    comp_bad = ["RTR_001/eth0", "| router | interface | loss_pct |\n|---|---|---|\n| RTR_001 | eth0 | 7.9 |\n"
                "| RTR_002 | eth2 | 7.4 |", "| router | interface | loss_pct |\n|---|---|---|\n| RTR_003 | eth2 | 7.9 |\n"
                "| RTR_001 | eth0 | 7.4 |", json.dumps([{"router": "RTR_002", "interface": "eth2", "loss": 8.0},
                                                      {"router": "RTR_001", "interface": "eth1", "loss": 7.4}]),
                "RTR_002/eth2"]
    R += [("ENT_IFACE", "composite_entity", t, "correct", "RTR_001/eth2 in one row, on top") for t in comp_good]
    R += [("ENT_IFACE", "composite_entity", t, "incorrect", "the top row is another interface") for t in comp_bad]
    return R


def _mappings():
    R = []
    zg = ["zone_A=88, zone_B=80.5", "zone A: 88.0 %; zone B: 80.5 %",
          "| zone | max_humidity_pct |\n|---|---|\n| zone_A | 88.0 |\n| zone_B | 80.5 |",
          json.dumps({"zone_A": 88.0, "zone_B": 80.5}),
          json.dumps([{"zone": "zone_A", "max_humidity": 88.0, "at": EPOCH}, {"zone": "zone_B", "max_humidity": 80.5,
                                                                             "at": EPOCH + 3600000}]),
          "zone\nzone_A    88.0\nzone_B    80.5\nName: humidity, dtype: float64",
          "     zone  humidity\n0  zone_A      88.0\n1  zone_B      80.5",
          "The highest humidity was 88.0% in zone_A and 80.5% in zone_B.",
          "zone_A and zone_B peaked at 88.0% and 80.5% respectively.",
          "- **zone_A**: 88.0%\n- **zone_B**: 80.5%"]
    zb = [("zone_A=88, zone_B=81.5", "zone_B wrong"), ("zone_A=88", "zone_B missing"),
          ("zone_A and zone_B peaked at 80.5% and 88.0% respectively.", "values swapped"),
          ("| zone | max_humidity_pct |\n|---|---|\n| zone_A | 88.0 |\n| zone_B | 79.9 |", "zone_B wrong"),
          (json.dumps({"zone_A": 88.0, "zone_B": 80.5, "zone_C": 77.1}), "an extra zone"),
          ("zone_A=88, zone_B=80.5, zone_C=77.1", "an extra zone")]
    R += [("MAP_ZONE", "mapping", t, "correct", "both zones right") for t in zg]
    R += [("MAP_ZONE", "mapping", t, "incorrect", w) for t, w in zb]
    tg = ["offline: 87, online: 324", "| next_status | transitions |\n|---|---|\n| offline | 87 |\n| online | 324 |",
          json.dumps({"offline": 87, "online": 324}), "next_status\noffline     87\nonline     324\nName: n, dtype: int64",
          "From 'maintenance', sensors went to offline 87 times and to online 324 times."]
    tb = [("offline: 87, online: 324, tampered: 1286", "extra key (the naive reading)"),
          ("| next_status | transitions |\n|---|---|\n| maintenance | 5110 |\n| offline | 87 |\n| online | 324 |",
           "extra key: maintenance to maintenance is not a transition"),
          (json.dumps({"offline": 87, "online": 324, "tampered": 1286}), "extra key"),
          ("offline: 87, online: 342", "online wrong"), ("offline: 87", "online missing")]
    R += [("MAP_TRANS", "mapping", t, "correct", "both counts right, no extra key") for t in tg]
    R += [("MAP_TRANS", "extra_keys" if "extra" in w else "mapping", t, "incorrect", w) for t, w in tb]
    dg = ["v1: 2 hours 10 minutes, v2: 1 hour", "v1=7800, v2=3600",
          "| firmware | mean_duration_s |\n|---|---|\n| v1 | 7800 |\n| v2 | 3600 |",
          "| firmware | mean_duration_min |\n|---|---|\n| v1 | 130 |\n| v2 | 60 |",
          json.dumps({"v1": "2:10:00", "v2": "1:00:00"})]
    R += [("MAP_DUR", "mapping", t, "correct", "both durations right") for t in dg]
    R += [("MAP_DUR", "mapping", t, "incorrect", "a duration wrong") for t in
          ["v1: 2 hours, v2: 1 hour", "| firmware | mean_duration_min |\n|---|---|\n| v1 | 130 |\n| v2 | 75 |"]]
    sg = ["north and south had 42.97% and 40.09% respectively.",
          "The share of curtailed readings was 42.97% for north and 40.09% for south.",
          "| site | curtailed_pct | n_readings |\n|---|---|---|\n| north | 42.97 | 1440 |\n| south | 40.09 | 1440 |",
          "   site  curtailed_pct  n_readings\n0  north          42.97        1440\n1  south          40.09        1440",
          "site    n_readings   curtailed_pct\nnorth   1440         42.97\nsouth   1440         40.09"]
    sb = [("north and south had 40.09% and 42.97% respectively.", "swapped"),
          ("| site | curtailed_pct | n_readings |\n|---|---|---|\n| north | 42.97 | 1440 |\n| south | 41.20 | 1440 |",
           "south wrong"), ("north: 0.4297, south: 0.4009", "fractions where percent was asked")]
    R += [("MAP_SITE", "respectively" if "respectively" in t else "mapping", t, "correct", "both shares") for t in sg]
    R += [("MAP_SITE", "respectively" if "respectively" in t else "mapping", t, "incorrect", w) for t, w in sb]
    return R


def _rankings():
    R = []
    rg = ["1. CELL_4 (308)\n2. CELL_18 (305)\n3. CELL_22 (301)", "CELL_4 (308), CELL_18 (305), CELL_22 (301)",
          "| rank | cell | failures |\n|---|---|---|\n| 1 | CELL_4 | 308 |\n| 2 | CELL_18 | 305 |\n| 3 | CELL_22 | 301 |",
          "  cell_id  total_failures\n0  CELL_4             308\n1  CELL_18            305\n2  CELL_22            301",
          json.dumps([{"cell_id": "CELL_4", "failures": 308}, {"cell_id": "CELL_18", "failures": 305},
                      {"cell_id": "CELL_22", "failures": 301}]),
          "The top three are CELL_4 with 308 failures, CELL_18 with 305 and CELL_22 with 301.",
          "cell_id\nCELL_4     308\nCELL_18    305\nCELL_22    301\nName: failures, dtype: int64"]
    rb = [("1. CELL_18 (305)\n2. CELL_4 (308)\n3. CELL_22 (301)", "wrong order"),
          ("1. CELL_4 (308)\n2. CELL_18 (305)\n3. CELL_9 (301)", "wrong cell"),
          ("1. CELL_4 (308)\n2. CELL_18 (300)\n3. CELL_22 (301)", "wrong value"),
          ("1. CELL_4\n2. CELL_18\n3. CELL_22", "values missing"),
          ("| cell | failures |\n|---|---|\n| CELL_4 | 308 |\n| CELL_18 | 305 |\n| CELL_22 | 301 |\n| CELL_9 | 299 |\n"
           "| CELL_31 | 297 |", "five cells where three were asked")]
    R += [("RANK_CELLS", "ranking", t, "correct", "right cells, order and values") for t in rg]
    R += [("RANK_CELLS", "extra_keys" if "five" in w else "ranking", t, "incorrect", w) for t, w in rb]
    pg = ["1. operational → warning → operational: 27 sensors\n2. operational → offline → operational: 8 sensors",
          "operational -> warning -> operational (27); operational -> offline -> operational (8)",
          "| path | sensors |\n|---|---|\n| operational > warning > operational | 27 |\n"
          "| operational > offline > operational | 8 |"]
    pb = [("1. operational > offline > operational: 8\n2. operational > warning > operational: 27", "wrong order"),
          ("1. operational > operational > operational: 30787\n2. offline > offline > offline: 12", "naive paths")]
    R += [("RANK_PATHS", "ranking", t, "correct", "right paths and counts") for t in pg]
    R += [("RANK_PATHS", "ranking", t, "incorrect", w) for t, w in pb]
    return R


def _others():
    R = [("TS_FIRST", "timestamp", t, "correct", "09:15 UTC on 2 January") for t in
         ["2026-01-02T09:15:00Z", "The first critical reading was at 2026-01-02 09:15:00 UTC.",
          "| first_critical |\n|---|\n| 2026-01-02 09:15:00 |", '[{"first_critical": "2026-01-02T09:15:00+00:00"}]']]
    R += [("TS_FIRST", "timestamp", t, "incorrect", "another time") for t in
          ["2026-01-02T09:30:00Z", "The first critical reading was at 2026-01-02 10:15:00 UTC."]]
    R += [("LABEL_PAGE", "label", t, "correct", "checkout") for t in
          ["checkout", "Checkout.", "The page with the highest exit rate was **checkout**.",
           "| page | exit_rate |\n|---|---|\n| checkout | 0.382 |\n| cart | 0.301 |"]]
    R += [("LABEL_PAGE", "label", t, "incorrect", "another page") for t in
          ["cart", "The page with the highest exit rate was **cart**.",
           "| page | exit_rate |\n|---|---|\n| cart | 0.412 |\n| checkout | 0.382 |"]]
    R += [("LABEL_SEMI", "label", t, "correct", "the state named with a ;") for t in
          ["warn;hold", "The most frequent status was warn;hold.", "**warn;hold**"]]
    R += [("LABEL_SEMI", "label", t, "incorrect", "another status") for t in ["warn", "hold", "ok"]]
    R += [("TABLE_ZONE", "table", t, "correct", "same rows") for t in
          ["| zone | n |\n|---|---|\n| zone_A | 3 |\n| zone_B | 5 |", "| zone | n |\n|---|---|\n| zone_B | 5 |\n| zone_A | 3 |",
           json.dumps([{"zone": "zone_A", "n": 3}, {"zone": "zone_B", "n": 5}])]]
    R += [("TABLE_ZONE", "table", t, "incorrect", "a row wrong or missing") for t in
          ["| zone | n |\n|---|---|\n| zone_A | 3 |", '{"columns": ["zone", "n"], "rows": [["zone_A", 3], ["zone_B", 6]]}']]
    return R


def structured_rows():
    """All structured rows as (record key, shape, response, label, reason)."""
    return _entities() + _mappings() + _rankings() + _others()
