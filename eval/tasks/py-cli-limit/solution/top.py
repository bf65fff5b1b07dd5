import argparse


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("path", nargs="?", default="scores.txt")
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args(argv)
    with open(args.path, encoding="utf-8") as handle:
        rows = [line.split() for line in handle if line.strip()]
    ordered = sorted(rows, key=lambda row: -int(row[1]))
    for name, score in ordered[: args.limit] if args.limit is not None else ordered:
        print(name, score)


if __name__ == "__main__":
    main()
