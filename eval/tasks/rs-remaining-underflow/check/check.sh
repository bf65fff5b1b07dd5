#!/usr/bin/env bash
# The hidden integration test joins the crate; cargo builds and tests it offline.
set -euo pipefail
mkdir -p tests
cp .eval-check/hidden.rs tests/zz_hidden.rs
cargo test --offline --quiet
