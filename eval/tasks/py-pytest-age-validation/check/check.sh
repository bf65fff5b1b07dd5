#!/usr/bin/env bash
set -euo pipefail
python3 -m pytest -q -p no:cacheprovider tests .eval-check/test_hidden_people.py
