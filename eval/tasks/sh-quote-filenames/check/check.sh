set -e
work=$(mktemp -d)
printf 'a\nb\n' > "$work/two lines.txt"
printf 'one\n' > "$work/one.txt"
out=$(bash count-lines.sh "$work" | sort)
expected=$(printf '1 one.txt\n2 two lines.txt')
rm -rf "$work"
[ "$out" = "$expected" ] || { echo "got: $out"; exit 1; }
