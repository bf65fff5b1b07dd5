import os, sys
sys.path.insert(0, os.getcwd())
from orders import Order
assert Order().total() == 0
assert Order().add("a", 2, 3.5).add("b", 1, 1.25).total() == 8.25
assert Order(discount_percent=10).add("a", 3, 10).total() == 27.0
assert Order(discount_percent=33).add("a", 1, 9.99).total() == 6.69
