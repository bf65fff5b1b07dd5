#!/usr/bin/env bash
# The project's own tests must pass unchanged, and the hidden cases too.
set -euo pipefail
cmp clamp_test.go .eval-check/clamp_test.go.orig
cp .eval-check/hidden_test.go ./zz_hidden_test.go
go test -count=1 ./...
