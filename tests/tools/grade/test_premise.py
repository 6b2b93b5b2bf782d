"""Grading false-premise and unanswerable answers: rejections of the premise and refusals that name
the missing data are correct; answers that go along with the premise (a figure, a cause) are not."""

from __future__ import annotations

import pytest

from tests.data.grader.premises import PREMISE_RECORDS, PREMISE_ROWS
from tools.grade import grade_response


@pytest.mark.parametrize("key,response,label,why", PREMISE_ROWS, ids=[f"{r[0]}-{i}" for i, r in enumerate(PREMISE_ROWS)])
def test_hand_labelled_premise_answers(key, response, label, why):
    g = grade_response(PREMISE_RECORDS[key], response)
    assert g.label == label, (why, g.detail, g.reason)


def test_a_refusal_naming_the_missing_data_is_not_a_runtime_error():
    g = grade_response(PREMISE_RECORDS["NO_HUM"], "I'm sorry, I can't answer: there is no humidity column.")
    assert (g.label, g.reason) == ("correct", "names_missing_data")
    g = grade_response(PREMISE_RECORDS["NO_RTR"], "The mean was 18.42.")
    assert (g.label, g.reason) == ("incorrect", "fabricated")
