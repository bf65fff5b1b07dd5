"""The service's entry point: where it listens."""
from generated import settings


def address():
    return (settings.SERVER_HOST, settings.SERVER_PORT)


if __name__ == "__main__":
    host, port = address()
    print(f"listening on {host}:{port}")
