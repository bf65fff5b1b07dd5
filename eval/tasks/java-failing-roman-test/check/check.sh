#!/usr/bin/env bash
# The project's own test must pass unchanged, then the hidden cases.
set -euo pipefail
# Unchanged but for trailing newlines ($(...) drops them).
if [ "$(cat src/RomanTest.java)" != "$(cat .eval-check/RomanTest.java.orig)" ]; then echo "src/RomanTest.java was changed" >&2; exit 1; fi
out="$(mktemp -d)"
javac -d "$out" src/*.java .eval-check/HiddenCheck.java
java -cp "$out" RomanTest
java -cp "$out" HiddenCheck
