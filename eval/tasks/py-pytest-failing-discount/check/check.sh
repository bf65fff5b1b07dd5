#!/usr/bin/env bash
# The project's own pytest tests must pass unchanged, and the hidden ones too.
set -euo pipefail
cmp tests/test_pricing.py .eval-check/test_pricing.py.orig
python3 -m pytest -q -p no:cacheprovider tests .eval-check/test_hidden_pricing.py
