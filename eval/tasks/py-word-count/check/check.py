import os, sys
sys.path.insert(0, os.getcwd())
from words import word_count
assert word_count("Hello, hello!") == {"hello": 2}
assert word_count("The cat; the HAT.") == {"the": 2, "cat": 1, "hat": 1}
assert word_count("") == {}
