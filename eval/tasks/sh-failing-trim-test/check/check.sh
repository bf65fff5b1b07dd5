set -e
bash tests/run.sh
out=$(printf ' \t x y \t \n' | bash trim.sh)
[ "$out" = "x y" ] || { echo "got [$out]"; exit 1; }
