import pytest

from pricing import apply_discount


@pytest.mark.parametrize(
    ("price", "percent", "expected"),
    [(100.0, 10, 90.0), (19.99, 0, 19.99), (50.0, 100, 0.0), (80.0, 25, 60.0)],
)
def test_apply_discount(price, percent, expected):
    assert apply_discount(price, percent) == pytest.approx(expected)


def test_rejects_out_of_range():
    with pytest.raises(ValueError):
        apply_discount(10.0, 120)
