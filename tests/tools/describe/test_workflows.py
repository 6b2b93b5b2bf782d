"""Workflows are understood as workflows (issue 29, item 4): a countable thing walked through named stages
becomes an event log with those stages (the user's words as identifiers), the final alternatives as terminal
states and its arrivals over the horizon, in fields the catalog does not know. Each description is written
for this test, in a field none of the description sets uses."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import load_catalog
from tools.describe.compose_world import compose_world
from tools.describe.reader_base import parse_days
from tools.describe.understand import understand

CAT = load_catalog()

# (description, entity name pattern, states in order, terminal states, arrivals per day over the horizon)
CASES = [
    ("Building permit applications at one city council, about 25 new applications lodged every working day, "
     "6 months of data. permit goes lodged -> validated -> site inspected -> granted, or its refused or withdrawn "
     "before the inspection.",
     "permit|application", ["lodged", "validated", "site_inspected", "granted", "refused", "withdrawn"],
     {"granted", "refused", "withdrawn"}, 25 * 5 / 7),
    ("Our recruiting team receives approximately 300 job applications each week and we want 3 months of records. "
     "An application is received, then screened by a recruiter, then interviewed, and after that it is either "
     "offered, rejected, or the candidate never replies (ghosted).",
     "application", ["received", "screened", "interviewed", "offered", "rejected", "ghosted"],
     {"offered", "rejected", "ghosted"}, 300 / 7),
    ("Research grant proposals go through submitted, triaged, peer reviewed and end as funded or declined. "
     "About 40 proposals a day over 120 days.",
     "proposal", ["submitted", "triaged", "peer_reviewed", "funded", "declined"], {"funded", "declined"}, 40),
    ("Warranty claims for a kitchen appliance maker, roughly 80 per day for 60 days. Stages: opened, diagnosed, "
     "parts ordered, repaired; outcome: closed / rejected.",
     "claim", ["opened", "diagnosed", "parts_ordered", "repaired", "closed", "rejected"], {"closed", "rejected"}, 80),
    ("Pet adoptions at 3 animal shelters over 60 days, around 15 a day. An adoption is requested, then screened, "
     "then approved, then completed, or it is cancelled.",
     "adoption", ["requested", "screened", "approved", "completed", "cancelled"], {"completed", "cancelled"}, 15),
    ("A restaurant group takes ~1,200 bookings a month across 4 venues; give me 6 months. Bookings are made, "
     "confirmed by text, then the party is seated and pays, or the booking is cancelled or the party never turns "
     "up (no-show).",
     "booking", ["made", "confirmed", "seated", "paid", "cancelled", "no_show"], {"paid", "cancelled", "no_show"},
     1200 * 12 / 365),
    ("Import customs declarations at a port, about 500 a day for 30 days: lodged -> risk assessed -> held for "
     "inspection -> cleared, or its seized or abandoned.",
     "declaration", ["lodged", "risk_assessed", "held", "cleared", "seized", "abandoned"],
     {"cleared", "seized", "abandoned"}, 500),
    ("A vaccination appointment starts when a patient books online; the patient checks in, is vaccinated and then "
     "observed for 15 minutes, and then the appointment is completed, or it is cancelled. Roughly 900 "
     "appointments a day over 4 weeks.",
     "appointment", ["booked", "checked_in", "vaccinated", "observed", "completed", "cancelled"],
     {"completed", "cancelled"}, 900),
    ("Scholarship applications: roughly forty new applications submitted every working day, 1 year of data. An "
     "application is submitted, then passes through an eligibility check and an essay review. From there it is "
     "either awarded, or placed on hold while the panel waits for references (after which it returns to review), "
     "or it is declined or withdrawn.",
     "application", ["submitted", "eligibility_check", "essay_review", "awarded", "on_hold", "declined", "withdrawn"],
     {"awarded", "declined", "withdrawn"}, 40 * 5 / 7),
    ("Parking fines issued by a city, about 350 a day for 90 days. Parking fines go through issued, notice sent, "
     "reminder sent and end as paid, cancelled or written off.",
     "fine", ["issued", "notice_sent", "reminder_sent", "paid", "cancelled", "written_off"],
     {"paid", "cancelled", "written_off"}, 350),
    ("Feature requests for our mobile app, ~60 a week over a year: proposed, then triaged, then scheduled, then "
     "shipped; some are declined.",
     "request", ["proposed", "triaged", "scheduled", "shipped", "declined"], {"shipped", "declined"}, 60 / 7),
    ("Wedding venue enquiries, approximately 70 a week, 26 weeks of data. An enquiry is received, a viewing is "
     "booked, then a quote is sent, and then the enquiry is either converted to a booking or it goes cold and is "
     "eventually closed.",
     "enquiry", ["received", "viewing_booked", "quote_sent", "converted", "cold", "closed"], {"converted", "closed"},
     10),
]


@pytest.mark.parametrize("text, pattern, states, terminal, per_day", CASES, ids=[c[1].split("|")[0] + str(i)
                                                                              for i, c in enumerate(CASES)])
def test_a_workflow_becomes_an_event_log_with_the_named_stages(text, pattern, states, terminal, per_day):
    d = understand(text, CAT)
    e = next((x for x in d.entities if re.search(pattern, x.name)), None)
    assert e is not None, [x.name for x in d.entities]
    assert e.kind == "lifecycle" and e.event_driven
    assert e.states == states
    assert set(e.terminal) == terminal
    days = parse_days(d.horizon)
    assert e.count is not None and abs(e.count - per_day * days) <= max(2, 0.03 * per_day * days), (e.count, days)
    spec, _, _ = compose_world(d, CAT)
    ent = next(x for x in spec.entities if x.name == e.name)
    assert ent.emission.kind == "on_transition"
    assert set(ent.states.terminal) == terminal
