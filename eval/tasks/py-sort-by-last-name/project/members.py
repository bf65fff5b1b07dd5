def sort_members(members):
    """members: a list of "First Last" strings."""
    return sorted(members)
