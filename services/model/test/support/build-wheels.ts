import { execFileSync } from "node:child_process";
import { join } from "node:path";

/**
 * Builds a real (minimal, valid) py3-none-any wheel with Python's zipfile: `files` maps a member
 * path to the local file whose bytes it holds. Returns the wheel's path. pip accepts it with
 * `--no-index --find-links DIR`, so a pull test runs the real pip without the network.
 */
export function buildWheel(dir: string, name: string, version: string, files: Record<string, string>): string {
  const dist = name.replace(/[-_.]+/g, "_");
  const wheel = join(dir, `${dist}-${version}-py3-none-any.whl`);
  const script = `
import json, sys, zipfile
wheel, dist, name, version, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
info = f"{dist}-{version}.dist-info"
with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
    for member, source in files.items():
        z.write(source, member)
    z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n")
    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\\nGenerator: aide-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
    z.writestr(f"{info}/RECORD", "")
`;
  execFileSync("python3", ["-c", script, wheel, dist, name, version, JSON.stringify(files)]);
  return wheel;
}
