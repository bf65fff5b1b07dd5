import os, sys
sys.path.insert(0, os.getcwd())
from mathutil import factorial
assert factorial(0) == 1
assert factorial(1) == 1
assert factorial(5) == 120
try:
    factorial(-1)
except ValueError:
    pass
else:
    raise AssertionError("factorial(-1) must raise ValueError")
