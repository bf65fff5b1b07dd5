def parse_age(text):
    """The age given as text, as an int between 0 and 150."""
    try:
        age = int(text.strip())
    except ValueError:
        raise ValueError("age must be a whole number") from None
    if not 0 <= age <= 150:
        raise ValueError("age must be between 0 and 150")
    return age
