import os, sys
sys.path.insert(0, os.getcwd())
from stats import median
assert median([1, 2, 3, 4]) == 2.5
assert median([3, 1, 2]) == 2
assert median([5]) == 5
assert median([4, 1, 3, 2]) == 2.5
