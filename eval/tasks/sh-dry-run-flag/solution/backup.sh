#!/bin/bash
set -eu
dry_run=0
if [ "${1:-}" = "-n" ]; then
  dry_run=1
  shift
fi
src=$1
dest=$2
[ "$dry_run" -eq 1 ] || mkdir -p "$dest"
for file in "$src"/*; do
  if [ "$dry_run" -eq 1 ]; then
    echo "would copy $(basename "$file")"
  else
    cp "$file" "$dest/"
    echo "copied $(basename "$file")"
  fi
done
