#!/usr/bin/env bash
# Builds the command and runs it with and without the new flag.
set -euo pipefail
bin="$(mktemp -d)/greet"
go build -o "$bin" .
test "$("$bin" -name bob)" = "Hello, bob!"
test "$("$bin" -name bob -upper)" = "HELLO, BOB!"
test "$("$bin" -upper)" = "HELLO, WORLD!"
go vet ./...
