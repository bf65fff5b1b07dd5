#!/usr/bin/env bash
# Compiles the project with the hidden check class (plain javac, no build tool) and runs it: its exit code is the verdict.
set -euo pipefail
out="$(mktemp -d)"
javac -d "$out" src/*.java .eval-check/HiddenCheck.java
java -cp "$out" HiddenCheck
