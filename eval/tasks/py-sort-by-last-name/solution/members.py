def sort_members(members):
    """members: a list of "First Last" strings."""
    def key(member):
        first, _, last = member.rpartition(" ")
        return (last.lower(), first.lower())
    return sorted(members, key=key)
