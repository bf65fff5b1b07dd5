#!/bin/bash
set -eu
out=${BUILD_OUT_DIR:-dist}
mkdir -p "$out"
for f in src/*.md; do
  cp "$f" "$out/"
done
