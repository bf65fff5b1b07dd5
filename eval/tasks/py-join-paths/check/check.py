import os, sys
sys.path.insert(0, os.getcwd())
import os
from paths import output_path
assert output_path("out", "report.txt") == os.path.join("out", "report.txt")
assert output_path("out/", "report.txt") == os.path.join("out", "report.txt")
