def normalize_phone(raw):
    digits = "".join(ch for ch in raw if ch.isdigit())
    if digits.startswith("00"):
        digits = digits[2:]
    return "+" + digits


def add_contact(book, name, phone):
    book[name] = normalize_phone(phone)
    return book


def find_by_phone(book, phone):
    wanted = normalize_phone(phone)
    return [name for name, number in book.items() if number == wanted]
