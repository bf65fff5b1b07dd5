#!/usr/bin/env bash
# The project's own test must pass unchanged, then the hidden cases.
set -euo pipefail
cmp src/RomanTest.java .eval-check/RomanTest.java.orig
out="$(mktemp -d)"
javac -d "$out" src/*.java .eval-check/HiddenCheck.java
java -cp "$out" RomanTest
java -cp "$out" HiddenCheck
