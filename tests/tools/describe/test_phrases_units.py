"""Reading list items, numbers in words and units the way users write them."""

from __future__ import annotations

import pytest

from tools.describe.phrases import parse_item, sentences, split_items, words_to_numbers
from tools.describe.units import convert, convert_spread, parse_unit, unit_label


@pytest.mark.parametrize("text, want", [
    ("forty wind turbines every second for two weeks", "40 wind turbines every second for 2 weeks"),
    ("a dozen pumps and two hundred and fifty scooters", "12 pumps and 250 scooters"),
    ("twenty-five drones, one of them grounded", "25 drones, one of them grounded"),
    ("a sensor reports every minute", "a sensor reports every minute"),
])
def test_numbers_in_words_become_digits_but_ordinals_and_pronouns_stay(text, want):
    assert words_to_numbers(text) == want


@pytest.mark.parametrize("raw, words, unit, level, high", [
    ("rotor speed in rpm", "rotor speed", "rpm", None, None),
    ("power output (kW)", "power output", "kW", None, None),
    ("nacelle temperature around -20 °C", "nacelle temperature", "°C", -20.0, None),
    ("bag weight in kg (max 32)", "bag weight", "kg", None, 32.0),
    ("an amount in EUR (multiples of 10, at most 1000)", "amount", "EUR", None, 1000.0),
    ("hive weight kg", "hive weight", "kg", None, None),
    ("NO2 in ppb", "NO2", "ppb", None, None),
    ("PM2.5", "PM2.5", None, None, None),
    ("speed (up to 25 km/h)", "speed", "km/h", None, 25.0),
])
def test_list_items_keep_name_unit_level_and_limits(raw, words, unit, level, high):
    it = parse_item(raw)
    assert (it.words, it.unit, it.level, it.high) == (words, unit, level, high)


def test_attribute_values_in_brackets_and_list_splitting():
    assert parse_item("tariff plan (standard, economy 7 or time-of-use)").values == ["standard", "economy 7",
                                                                                     "time-of-use"]
    assert split_items("PM2.5 and PM10 in µg/m³, NO2 in ppb and ozone, heating/cooling") == [
        "PM2.5", "PM10 in µg/m³", "NO2 in ppb", "ozone", "heating", "cooling"]
    assert sentences("Freezers hold -20.5 °C. Each has a site; they report every 5 min") == [
        "Freezers hold -20.5 °C", "Each has a site", "they report every 5 min"]


def test_units_parse_convert_and_label():
    assert unit_label(parse_unit("°C")) == "°C" and unit_label(parse_unit("kW")) == "kW"
    assert str(parse_unit("beats per minute")) == "bpm"
    assert parse_unit("banana") is None
    assert convert(-20, "degC", "degF") == pytest.approx(-4.0)
    assert convert_spread(2, "degC", "degF") == pytest.approx(3.6)
    assert convert(1, "kW", "USD") is None  # not one dimension
