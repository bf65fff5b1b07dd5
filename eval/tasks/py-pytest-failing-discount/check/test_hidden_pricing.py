import pytest

from pricing import apply_discount


def test_hidden_rounding_to_cents():
    assert apply_discount(9.99, 15) == 8.49
    assert apply_discount(200.0, 12.5) == pytest.approx(175.0)
