set -e
[ -f ext-count.sh ] || { echo "ext-count.sh is missing"; exit 1; }
work=$(mktemp -d)
mkdir -p "$work/a/b"
touch "$work/x.js" "$work/a/y.js" "$work/a/b/z.py" "$work/a/b/w.py" "$work/a/q.md" "$work/Makefile" "$work/a/b/v.js"
out=$(bash ext-count.sh "$work")
expected=$(printf '3 js\n2 py\n1 (none)\n1 md')
rm -rf "$work"
[ "$out" = "$expected" ] || { echo "got:"; echo "$out"; exit 1; }
