import time

RETRIES = 3


def fetch_with_retry(fetch, retries=RETRIES, pause=0.1):
    last = None
    for attempt in range(retries + 1):
        try:
            return fetch()
        except OSError as error:
            last = error
            time.sleep(pause * attempt)
    raise last
