import os, sys
sys.path.insert(0, os.getcwd())
import subprocess
subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests", "-t", "."], check=True)
from stack import Stack
s = Stack()
for i in range(5):
    s.push(i)
assert [s.pop() for _ in range(5)] == [4, 3, 2, 1, 0]
