def parse_age(text):
    """The age given as text, as an int."""
    return int(text.strip())
