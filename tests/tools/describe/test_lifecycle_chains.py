"""Lifecycle stage chains and per-event measurements written the way people write them (issue 29): arrow chains
with asides in brackets, stages told as verb phrases ("we appraise it"), "X and Y" inside one stage, branches
("(or ...)", "or they walk"), outcome lists ("Other outcomes are A, B, or C"), loops ("come back to available")
and a "Per <thing>: A, B and C" list of the thing's measurements with units. Every description is written for
this test, in a field none of the description sets uses; names are the user's words as identifiers."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import load_catalog
from tools.describe.chains import read_chain, read_outcomes
from tools.describe.per_lists import per_list
from tools.describe.stage_words import clause_stage
from tools.describe.understand import understand

CAT = load_catalog()
GLUE = {"and", "or", "the", "a", "an", "for", "to", "by", "on", "is", "are", "it", "they", "we", "then", "with", "of"}

# (description, entity pattern, stages in order, terminal states, {measurement: unit})
CASES = [
    ("Interlibrary loans at a university library, about 40 requests a day, 6 months of data. Each request goes: "
     "submitted -> sourced from a partner library -> shipped (by courier or post) -> received at the desk -> "
     "checked out -> returned -> sent back to the lender. Other outcomes are cancelled, lost, or unfilled. "
     "Per request: days to fill in days, postage in $ and the number of renewals.",
     "request", ["submitted", "sourced", "shipped", "received", "checked_out", "returned", "sent_back", "cancelled",
                 "lost", "unfilled"], {"sent_back", "cancelled", "lost", "unfilled"},
     {"days_to_fill": "d", "postage": "USD", "number_of_renewals": None}),
    ("Warranty repairs for a phone maker, roughly 300 a day over 3 months. How it goes: customer ships the phone to "
     "us -> we inspect it -> diagnosis and quote -> parts ordered -> repaired (or replaced if the board is dead) -> "
     "quality checked -> shipped back. Customers can decline the quote, abandon the device, or ask for a refund.",
     "repair", ["phone_shipped", "inspected", "diagnosis", "parts_ordered", "repaired", "replaced", "quality_checked",
                "shipped_back", "quote_declined", "device_abandoned", "refund_asked"],
     {"shipped_back", "replaced", "quote_declined", "device_abandoned", "refund_asked"}, {}),
    ("Visa applications at a consulate, ~150 a day, 1 year of data. An application goes lodged → biometrics taken → "
     "background check → interview (for some categories) → decision → visa issued. A handful are refused at the "
     "decision, and plenty of applicants withdraw. For each application record the processing time in days, the "
     "fee in € and the applicant age in years.",
     "application", ["lodged", "biometrics_taken", "background_check", "interview", "decision", "visa_issued",
                     "refused"], {"visa_issued", "refused"},
     {"processing_time": "d", "fee": "EUR", "applicant_age": "a"}),
    ("Crop insurance claims, about 25 claims a day for 4 months. A claim goes: filed -> adjuster assigned -> field "
     "inspected -> loss assessed -> approved -> paid. Claims can be denied or withdrawn at any time. Per claim we "
     "track the acres affected, the estimated loss in $ and the payout in $.",
     "claim", ["filed", "adjuster_assigned", "field_inspected", "loss_assessed", "approved", "paid", "denied",
               "withdrawn"], {"paid", "denied", "withdrawn"},
     {"acres_affected": None, "estimated_loss": "USD", "payout": "USD"}),
    ("Film festival submissions, roughly 90 a day over 10 weeks. Each film goes: submitted -> screened by a "
     "programmer -> shortlisted -> jury review -> selected. Most films never get past screening and are rejected "
     "there, and some are withdrawn by the filmmaker. Per film: runtime in minutes, entry fee in $ and the jury "
     "score (1-10).",
     "film", ["submitted", "screened", "shortlisted", "jury_review", "selected", "rejected", "withdrawn"],
     {"selected", "rejected", "withdrawn"}, {"runtime": "min", "entry_fee": "USD", "jury_score": None}),
    ("Dog grooming appointments at 3 salons, around 35 appointments a day, 8 weeks of data. Each appointment "
     "goes: booked -> dog checked in -> bath and dry -> haircut -> nail trim -> picked up. Clients can cancel, "
     "reschedule, or not turn up (no-show). Per appointment we log the dog weight in kg, the price in $ and the "
     "time on the table in minutes.",
     "appointment", ["booked", "dog_checked", "bath", "haircut", "nail_trim", "picked_up", "cancelled",
                     "rescheduled", "no_show"], {"picked_up", "cancelled", "rescheduled", "no_show"},
     {"dog_weight": "kg", "price": "USD", "time_on_table": "min"}),
]


@pytest.mark.parametrize("text, pattern, states, terminal, measured", CASES,
                         ids=[c[1] + str(i) for i, c in enumerate(CASES)])
def test_a_written_workflow_reads_its_stages_endings_and_measurements(text, pattern, states, terminal, measured):
    d = understand(text, CAT)
    e = next((x for x in d.entities if re.search(pattern, x.name) and x.kind == "lifecycle"), None)
    assert e is not None, [(x.name, x.kind) for x in d.entities]
    assert e.states == states
    assert set(e.terminal) == terminal
    for x in e.states:
        assert not set(x.split("_")) & GLUE, x
    got = {m.name: m.unit for m in e.measurements}
    for name, unit in measured.items():
        assert name in got, got
        assert got[name] == unit, (name, got[name])


@pytest.mark.parametrize("piece, stage", [
    ("intake", "intake"), ("stray hold (72 hours for strays)", "stray_hold"), ("x-ray and bloods", "x_ray"), ("vaccinations", "vaccinations"),
    ("spay/neuter surgery", "spay_neuter_surgery"), ("available for collection", "available"),
    ("we appraise it", "appraised"), ("make a counter offer", "counter_offer_made"), ("gets tipped", "tipped"),
    ("the boat arrives at the dock", "arrived"), ("arrives at the gate", "arrived"), ("in the chair", "in_chair"),
    ("placed on hold while we wait", "on_hold"), ("they walk if they don't like it", "walked"),
    ("turns it down", "turned_down"), ("go out to a foster home for a week", "foster_home"),
    ("never comes back", ""), ("the loan is active", "active"), ("a no-show", "no_show"),
    ("customer brings the bike to the shop", "bike_brought"), ("the parcel is weighed", "weighed"),
])
def test_a_stage_is_named_with_the_users_words(piece, stage):
    assert clause_stage(piece) == stage


def test_middle_alternatives_are_stages_and_the_last_piece_ends_the_chain():
    f = read_chain("A print order goes proofed -> ready for collection or posted -> closed")
    assert f.stages == ["proofed", "ready", "posted", "closed"] and f.ends == ["closed"] and f.subject == "print order"


def test_an_or_aside_is_a_branch_that_ends_the_chain():
    f = read_chain("The process: buyer makes an offer -> we review it (or they withdraw it if the price changes) "
                   "-> contract signed")
    assert f.stages == ["offer_made", "reviewed", "withdrawn", "contract_signed"]
    assert set(f.ends) == {"withdrawn", "contract_signed"} and f.subject == ""


def test_outcome_sentences_and_loops():
    f = read_outcomes("Other outcomes are refunded, written off, or escalated to legal, and some cases go out to an "
                      "external agency and come back to review")
    assert f.extra and f.stages == ["refunded", "written_off", "escalated", "external_agency"]
    assert f.ends == ["refunded", "written_off", "escalated"] and f.back_to == {"external_agency": "review"}
    f = read_outcomes("A parcel with a damaged label is returned to sender, and a parcel that fails the scan is rescanned")
    assert f.ends == ["returned"] and "rescanned" in f.stages and f.loops == ["rescanned"]
    f = read_outcomes("After the hearing the case is either dismissed or upheld, and an upheld case goes to appeal or "
                      "closes")
    assert f.continues and f.stages[:3] == ["hearing", "dismissed", "upheld"]
    assert set(f.ends) == {"dismissed", "appeal", "closed"}


def test_a_per_thing_list_gives_measurements_with_units_and_ranges():
    thing, items, _span = per_list("Per delivery: distance in km (1-40 km), the tip in $ (most tip nothing, some $5) "
                                   "and how many minutes until the order arrived")
    assert thing == "delivery"
    got = {i.words: (i.unit, i.low, i.high, i.values) for i in items}
    assert got["distance"] == ("km", 1.0, 40.0, None)
    assert got["tip"][0] == "USD" and got["tip"][3] is None
    assert got["order arrived"][0] == "min"
    assert per_list("Per day: about 40 orders") is None


def test_unreadable_pieces_are_listed_not_invented():
    d = understand("Bike repairs, about 20 a day for a month. Each repair goes: booked -> 42 -> fixed -> collected.",
                   CAT)
    e = next(x for x in d.entities if x.kind == "lifecycle")
    assert e.states == ["booked", "fixed", "collected"]
    assert any("'42'" in n for n in d.not_understood)
