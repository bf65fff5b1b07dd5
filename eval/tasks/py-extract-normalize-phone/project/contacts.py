def add_contact(book, name, phone):
    digits = "".join(ch for ch in phone if ch.isdigit())
    if digits.startswith("00"):
        digits = digits[2:]
    book[name] = "+" + digits
    return book


def find_by_phone(book, phone):
    digits = "".join(ch for ch in phone if ch.isdigit())
    if digits.startswith("00"):
        digits = digits[2:]
    wanted = "+" + digits
    return [name for name, number in book.items() if number == wanted]
