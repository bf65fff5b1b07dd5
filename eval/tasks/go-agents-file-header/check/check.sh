#!/usr/bin/env bash
# Hidden check: SplitCents works (the hidden test joins the package), and every .go file that is
# new or changed starts with the header the project's AGENTS.md asks for.
set -euo pipefail
header=$'// Copyright 2026 Tern Labs. All rights reserved.\n// Owner: payments-team'
[ -f split.go ] || { echo "split.go is missing"; exit 1; }
for file in *.go; do
  if [ "$file" = money.go ] && cmp -s money.go .eval-check/money.go.orig; then continue; fi
  if [ "$(head -n 2 "$file")" != "$header" ]; then echo "$file does not start with the project's header"; exit 1; fi
done
cp .eval-check/hidden_test.go ./zz_hidden_test.go
go test -count=1 ./...
