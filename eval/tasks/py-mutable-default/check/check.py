import os, sys
sys.path.insert(0, os.getcwd())
from cart import new_cart, add_item
a = new_cart()
b = new_cart()
add_item(a, "apple")
assert b["items"] == [], b
assert a["items"] == ["apple"]
c = new_cart(["pear"])
assert c["items"] == ["pear"]
