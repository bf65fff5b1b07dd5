/** Whether a path is excluded from checkpoints by the configuration or always. */
import type { CheckpointContext } from "./checkpoint-context.js";
import { matchCompiled } from "./scan/exclude-rules.js";
import { isAlwaysExcluded } from "./scan/scan-workspace.js";

/** True when the path or one of its folders is excluded now (restore never touches those). */
export function isPathExcluded(context: CheckpointContext, path: string): boolean {
  const segments = path.split("/");
  let relativeDir = "";
  for (let i = 0; i < segments.length; i++) {
    const name = segments[i];
    if (isAlwaysExcluded(relativeDir, name)) return true;
    const current = relativeDir === "" ? name : `${relativeDir}/${name}`;
    if (matchCompiled(context.compiledExcludes, current, name, i < segments.length - 1)) return true;
    relativeDir = current;
  }
  return false;
}
