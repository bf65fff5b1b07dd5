from people import parse_age


def test_parses_a_plain_age():
    assert parse_age(" 42 ") == 42
