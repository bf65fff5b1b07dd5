import os

import pytest


@pytest.fixture
def connection():
    import psycopg  # noqa: F401  (installed on the warehouse hosts only)

    return psycopg.connect(os.environ["WAREHOUSE_DSN"])


def test_levels_match_the_warehouse(connection):
    rows = connection.execute("select sku, quantity from levels").fetchall()
    assert rows
