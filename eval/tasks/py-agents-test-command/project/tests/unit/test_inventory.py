import pytest

from inventory import restock, take


def test_restock_adds():
    assert restock({"a": 1}, "a", 2) == {"a": 3}


def test_take_refuses_more_than_in_stock():
    with pytest.raises(ValueError):
        take({"a": 1}, "a", 2)
