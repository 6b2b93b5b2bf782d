"""Slot extraction and comparison, and the normalized token edit distance."""

from tools.paraphrase import extract_slots, slot_problems, token_edit_distance, tokens

Q = ("How many cell sites whose Base_Station_ID is 'eNB_002' entered 'RRC_ConnEstabFail above 27 connections' "
     "from 14:00 UTC on 1 January 2026 (included) up to 14:00 UTC on 2 January 2026 (excluded), within 1 hr 30 min "
     "of a reading with Cell_Availability below 99.45 percent? Round to 2 decimal places.")


def test_slots_of_a_canonical_question():
    s = extract_slots(Q)
    assert s.quoted == {"enb 002": 1, "rrc connestabfail above 27 connections": 1}
    assert {"base station id", "cell availability"} <= s.identifiers
    assert s.dates == {"01-01": 1, "01-02": 1} and s.times == {"14:00": 2} and s.years == {2026}
    assert s.durations == {"3600": 1, "1800": 1}
    assert s.numbers == {"27": 1, "99.45": 1, "2": 1}
    assert s.comparators == {">": 1, "<": 1} and s.excludes_end


def test_formats_that_mean_the_same_slots():
    same = ("Round to 2 dp. Between 2026-01-01 14:00 UTC and Jan 2, 2026 at 2 PM UTC (start included, end "
            "excluded), within 1 h 30 mins of a reading with Cell_Availability < 99.45 %, how many cell sites "
            "whose Base_Station_ID is 'eNB_002' entered 'RRC_ConnEstabFail above 27 connections'?")
    assert slot_problems(Q, same) == []


def test_relative_dates_need_a_stated_today():
    q = "How many hosts restarted from 10:00 UTC on 6 January 2026 (included) up to 12:00 UTC on 6 January 2026 (excluded)?"
    rel = "Today is 7 January 2026. How many hosts restarted from yesterday at 10:00 UTC up to but not including yesterday at 12:00 UTC?"
    assert slot_problems(q, rel) == []
    assert any("without a stated 'today'" in p for p in slot_problems(q, rel.replace("Today is 7 January 2026. ", "")))
    assert slot_problems(q, rel.replace("7 January", "8 January"))  # another 'today' moves the window


def test_drift_in_each_slot_kind_is_named():
    cases = {"numbers": Q.replace("99.45", "99.5"), "durations": Q.replace("30 min", "45 min"),
             "times": Q.replace("14:00 UTC on 2", "15:00 UTC on 2"), "comparators": Q.replace("below 99.45", "above 99.45"),
             "'enb 002' is missing": Q.replace("eNB_002", "eNB_003"),
             "identifier 'cell availability' is missing": Q.replace("Cell_Availability", "Cell_Load"),
             "excluded end": Q.replace(" (excluded)", "")}
    for what, text in cases.items():
        assert any(what in p for p in slot_problems(Q, text)), what


def test_token_edit_distance():
    assert tokens("How many? 2.5 ms, v2.4.1") == ["how", "many", "2.5", "ms", "v2.4.1"]
    assert token_edit_distance("a b c d", "a b c d") == 0
    assert token_edit_distance("a b c d", "a x c d") == 0.25
    assert token_edit_distance("a b c d", "d c b a") == 1.0
    assert token_edit_distance("a b", "a b c d") == 0.5
    assert token_edit_distance("", "") == 0
