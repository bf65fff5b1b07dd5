#!/usr/bin/env bash
# The hidden test joins the package, then the whole module is built, vetted and tested.
set -euo pipefail
cp .eval-check/hidden_test.go ./zz_hidden_test.go
go test -count=1 ./...
