#!/usr/bin/env bash
# The project's own tests must pass unchanged, and the hidden cases too.
set -euo pipefail
# Unchanged but for trailing newlines ($(...) drops them).
if [ "$(cat clamp_test.go)" != "$(cat .eval-check/clamp_test.go.orig)" ]; then echo "clamp_test.go was changed" >&2; exit 1; fi
cp .eval-check/hidden_test.go ./zz_hidden_test.go
go test -count=1 ./...
