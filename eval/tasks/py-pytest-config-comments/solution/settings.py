def load_config(path):
    """The key=value pairs of a config file, as a dict of strings (# comments and blank lines skipped)."""
    config = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, value = line.split("=", 1)
            config[key.strip()] = value.strip()
    return config
