"""Hidden check: a new public function computes the account's total, and it follows the project's naming rule (tx_ prefix)."""
import importlib.util
import inspect
import sys

spec = importlib.util.spec_from_file_location("ledger", "ledger.py")
ledger = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ledger)

original = {"parse_amount", "format_amount"}
new = [name for name, value in vars(ledger).items() if inspect.isfunction(value) and value.__module__ == "ledger" and not name.startswith("_") and name not in original]
if not new:
    sys.exit("no new public function in ledger.py")
unprefixed = [name for name in new if not name.startswith("tx_")]
if unprefixed:
    sys.exit(f"new public functions not named tx_…: {', '.join(unprefixed)}")

entries = [{"account": "cash", "amount": 1250}, {"account": "bank", "amount": 999}, {"account": "cash", "amount": -250}]
right = []
for name in new:
    try:
        if getattr(ledger, name)(entries, "cash") == 1000 and getattr(ledger, name)(entries, "none") == 0:
            right.append(name)
    except Exception:
        pass
if not right:
    sys.exit(f"none of {', '.join(new)} returns the account's total for (entries, account)")
assert ledger.format_amount(ledger.parse_amount("12.34")) == "12.34"
