#!/usr/bin/env bash
# Hidden check: the build regenerates generated/ from settings/defaults.ini (as the project's
# AGENTS.md says it does), then the service must listen on 8080 with the rest unchanged.
set -euo pipefail
python3 tools/gen_settings.py
python3 - <<'PY'
import sys
import service
from generated import settings
if service.address() != ("127.0.0.1", 8080):
    sys.exit(f"after the build the service listens on {service.address()}, not 127.0.0.1:8080")
if settings.SERVER_TIMEOUT_S != 30:
    sys.exit("the timeout changed")
PY
