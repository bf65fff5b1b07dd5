import os, sys
sys.path.insert(0, os.getcwd())
import inspect
import contacts
assert hasattr(contacts, "normalize_phone"), "normalize_phone exists"
assert contacts.normalize_phone("0049 (30) 123-45") == "+493012345"
assert contacts.normalize_phone("+1 555 0100") == "+15550100"
for fn in (contacts.add_contact, contacts.find_by_phone):
    source = inspect.getsource(fn)
    assert "normalize_phone(" in source, fn.__name__ + " uses normalize_phone"
    assert "isdigit" not in source, fn.__name__ + " no longer normalizes by itself"
book = contacts.add_contact({}, "Ada", "0044 20 7946 0000")
assert book == {"Ada": "+442079460000"}
assert contacts.find_by_phone(book, "+44 (20) 7946-0000") == ["Ada"]
