def load_config(path):
    """The key=value pairs of a config file, as a dict of strings."""
    config = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            key, value = line.rstrip("\n").split("=", 1)
            config[key] = value
    return config
