#!/usr/bin/env bash
# The crate's own tests (the test module at the end of src/lib.rs) must pass unchanged, and the hidden ones too.
set -euo pipefail
# $(...) drops trailing newlines on both sides: a rewrite without the final newline is no change.
expected="$(cat .eval-check/tests_module.rs.orig)"
actual="$(sed -n '/^#\[cfg(test)\]/,$p' src/lib.rs)"
if [ "$actual" != "$expected" ]; then
  echo "the tests in src/lib.rs were changed" >&2
  exit 1
fi
mkdir -p tests
cp .eval-check/hidden.rs tests/zz_hidden.rs
cargo test --offline --quiet
