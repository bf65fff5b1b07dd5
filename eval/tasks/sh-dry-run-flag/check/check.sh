set -e
work=$(mktemp -d)
mkdir "$work/src"
echo x > "$work/src/a.txt"
echo y > "$work/src/b.txt"
out=$(bash backup.sh -n "$work/src" "$work/dest")
[ ! -e "$work/dest/a.txt" ] || { echo "dry run copied"; exit 1; }
echo "$out" | grep -q "would copy a.txt" || { echo "got: $out"; exit 1; }
echo "$out" | grep -q "would copy b.txt" || { echo "got: $out"; exit 1; }
bash backup.sh "$work/src" "$work/dest" > /dev/null
[ -e "$work/dest/b.txt" ] || { echo "real run did not copy"; exit 1; }
rm -rf "$work"
