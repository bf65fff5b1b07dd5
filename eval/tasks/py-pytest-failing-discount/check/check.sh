#!/usr/bin/env bash
# The project's own pytest tests must pass unchanged, and the hidden ones too.
set -euo pipefail
# Unchanged but for trailing newlines ($(...) drops them).
if [ "$(cat tests/test_pricing.py)" != "$(cat .eval-check/test_pricing.py.orig)" ]; then echo "tests/test_pricing.py was changed" >&2; exit 1; fi
python3 -m pytest -q -p no:cacheprovider tests .eval-check/test_hidden_pricing.py
