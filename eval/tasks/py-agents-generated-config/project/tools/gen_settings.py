"""Writes generated/settings.py from settings/defaults.ini (run at every build)."""
import configparser
from pathlib import Path

root = Path(__file__).resolve().parent.parent
config = configparser.ConfigParser()
config.read(root / "settings" / "defaults.ini")
lines = []
for section in config.sections():
    for key, value in config[section].items():
        name = f"{section}_{key}".upper()
        lines.append(f"{name} = {int(value) if value.isdigit() else repr(value)}")
(root / "generated").mkdir(exist_ok=True)
(root / "generated" / "settings.py").write_text("\n".join(lines) + "\n")
