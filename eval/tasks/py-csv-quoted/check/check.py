import os, sys
sys.path.insert(0, os.getcwd())
from report import read_rows
assert read_rows("people.csv") == [{"name": "Smith, Jane", "city": "Berlin"}, {"name": "Bob", "city": "Paris"}]
