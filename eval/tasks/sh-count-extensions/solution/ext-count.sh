#!/bin/bash
set -eu
find "$1" -type f | while IFS= read -r path; do
  name=$(basename "$path")
  case "$name" in
    *.*) echo "${name##*.}" ;;
    *) echo "(none)" ;;
  esac
done | sort | uniq -c | awk '{ print $1, $2 }' | LC_ALL=C sort -k1,1nr -k2,2
