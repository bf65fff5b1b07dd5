import os

BASE_PORT = 8400
OFFSET = 21


def port():
    return int(os.environ.get("APP_PORT", BASE_PORT + OFFSET))
