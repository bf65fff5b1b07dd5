def read_rows(path):
    rows = []
    with open(path, encoding="utf-8") as handle:
        header = handle.readline().strip().split(",")
        for line in handle:
            rows.append(dict(zip(header, line.strip().split(","))))
    return rows
