"""Ledger entries: dicts with an "account" and an "amount" in cents."""


def parse_amount(text):
    """'12.34' -> 1234 (cents)."""
    whole, _, cents = text.strip().partition(".")
    return int(whole) * 100 + int((cents + "00")[:2])


def format_amount(cents):
    """1234 -> '12.34'."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def tx_account_total(entries, account):
    """The sum of the amounts (cents) of the entries of `account`."""
    return sum(entry["amount"] for entry in entries if entry["account"] == account)
