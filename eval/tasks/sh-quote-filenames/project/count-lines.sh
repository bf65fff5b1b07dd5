#!/bin/bash
dir=$1
for file in $(ls $dir/*.txt); do
  echo "$(wc -l < $file) $(basename $file)"
done
