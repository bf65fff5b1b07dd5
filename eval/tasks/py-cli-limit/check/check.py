import os, sys
sys.path.insert(0, os.getcwd())
import subprocess
run = lambda *args: subprocess.run([sys.executable, "top.py", *args], capture_output=True, text=True, check=True).stdout
assert run() == "cy 99\nada 90\nbob 75\ndee 60\n", run()
assert run("--limit", "2") == "cy 99\nada 90\n"
assert run("scores.txt", "--limit", "1") == "cy 99\n"
