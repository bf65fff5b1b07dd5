#!/bin/bash
input=$1
if [ ! -f "$input" ]; then
  echo "no such file: $input" >&2
fi
tr 'a-z' 'A-Z' < "$input" 2>/dev/null
exit 0
