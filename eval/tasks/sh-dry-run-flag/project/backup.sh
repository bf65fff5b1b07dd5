#!/bin/bash
set -eu
src=$1
dest=$2
mkdir -p "$dest"
for file in "$src"/*; do
  cp "$file" "$dest/"
  echo "copied $(basename "$file")"
done
