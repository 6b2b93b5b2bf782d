"""How much history a description asks for (issue 29): calendar spans ("a quarter", "Q3", "the whole of
2025"), months and years, a time window on one day, and durations that are not the horizon (a cadence,
an age, a warranty, an incident's length). Each phrase is written for this test, not taken from a
description corpus."""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from tools.common.durations import parse_duration
from tools.describe.understand import understand

CAT = load_catalog()
DAY = 86400.0


@pytest.mark.parametrize("text, low, high", [
    ("40 weather buoys report wave height every 30 minutes for a quarter.", 89 * DAY, 92 * DAY),
    ("A seed bank logs germination tests: each test is sown, checked and scored, over one year.", 365 * DAY, 366 * DAY),
    ("Dairy farms report milk yield daily; we want 18 months of data.", 545 * DAY, 550 * DAY),
    ("30 beehives report hive weight every hour for six weeks.", 42 * DAY, 42 * DAY),
    # the stated hours: 15h, or the whole day that holds them while a spec starts at midnight
    ("Voting booths report queue length every 5 minutes from 7 am to 10 pm on polling day.", 15 * 3600, DAY),
    ("Ski lifts report rider count every 10 minutes; generate Q1 of 2026.", 89 * DAY, 91 * DAY),
    ("Toll gates report vehicles every 15 minutes across the whole of 2025.", 365 * DAY, 365 * DAY),
    ("12 forklifts report battery level every minute for two months; most forklifts are 18 months old "
     "and have a 6-month warranty.", 59 * DAY, 62 * DAY),
    ("A dental clinic logs appointments that are booked, attended or missed, for four months; a reminder is "
     "sent within 2 hours and a missed slot is rebooked after 3 days.", 120 * DAY, 123 * DAY),
    ("20 bread ovens report oven temperature every minute for a 36-hour trial; on day 1 oven 3 stops for "
     "90 minutes.", 36 * 3600, 36 * 3600),
    # a season from the middle of one month to the middle of another; an incident dated by the calendar
    # ("On 3 March at about 9:00 ... for roughly 4 hours") is the incident's length, not the data's
    ("Snow groomers report fuel level every 10 minutes from mid-November to mid-March. On 3 March at about "
     "9:00 two groomers break down for roughly 4 hours.", 119 * DAY, 122 * DAY),
    ("12 canal locks report water level every 5 minutes from early April to late October. On "
     "July 14th the lock at Wigan is stuck for 6 hours.", 200 * DAY, 212 * DAY),
])
def test_horizon(text, low, high):
    h = understand(text, CAT).horizon
    assert h is not None and low <= parse_duration(h) <= high, h


def test_a_long_horizon_at_a_short_cadence_is_kept():
    h = understand("500 smart meters report power every minute for one year.", CAT).horizon
    assert h is not None and parse_duration(h) >= 365 * DAY
