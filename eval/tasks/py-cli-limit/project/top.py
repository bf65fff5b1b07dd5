import sys


def main(argv):
    path = argv[0] if argv else "scores.txt"
    with open(path, encoding="utf-8") as handle:
        rows = [line.split() for line in handle if line.strip()]
    for name, score in sorted(rows, key=lambda row: -int(row[1])):
        print(name, score)


if __name__ == "__main__":
    main(sys.argv[1:])
