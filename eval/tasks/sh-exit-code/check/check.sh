work=$(mktemp -d)
echo hello > "$work/in.txt"
out=$(bash process.sh "$work/in.txt") || { echo "failed on a real file"; exit 1; }
[ "$out" = "HELLO" ] || { echo "got: $out"; exit 1; }
if bash process.sh "$work/missing.txt" 2>/dev/null; then echo "exit 0 on a missing file"; exit 1; fi
rm -rf "$work"
