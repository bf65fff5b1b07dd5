#!/bin/bash
dir=$1
for file in "$dir"/*.txt; do
  [ -e "$file" ] || continue
  echo "$(wc -l < "$file") $(basename "$file")"
done
