#!/bin/bash
input=$1
if [ ! -f "$input" ]; then
  echo "no such file: $input" >&2
  exit 1
fi
tr 'a-z' 'A-Z' < "$input"
