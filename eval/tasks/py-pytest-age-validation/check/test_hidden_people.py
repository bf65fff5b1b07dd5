import pytest

from people import parse_age


@pytest.mark.parametrize("text", ["-1", "151", "1000"])
def test_hidden_out_of_range(text):
    with pytest.raises(ValueError, match="age must be between 0 and 150"):
        parse_age(text)


@pytest.mark.parametrize("text", ["abc", "4.5", ""])
def test_hidden_not_a_number(text):
    with pytest.raises(ValueError, match="age must be a whole number"):
        parse_age(text)


def test_hidden_bounds():
    assert parse_age("0") == 0
    assert parse_age("150") == 150
