#!/bin/bash
set -e
here=$(dirname "$0")
out=$(printf '  a  \n\tb\t\n' | bash "$here/../trim.sh")
[ "$out" = "$(printf 'a\nb')" ] || { echo "FAIL: got [$out]"; exit 1; }
echo ok
