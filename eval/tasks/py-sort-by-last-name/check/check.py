import os, sys
sys.path.insert(0, os.getcwd())
from members import sort_members
assert sort_members(["Ada Lovelace", "alan Turing", "Grace Hopper", "Alan Kay"]) == ["Grace Hopper", "Alan Kay", "Ada Lovelace", "alan Turing"]
assert sort_members(["bo smith", "Al Smith"]) == ["Al Smith", "bo smith"]
