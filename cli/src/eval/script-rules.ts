import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { commandRuleWithDigest, packageScriptTexts, packageScriptsContext, scriptsDigestInput, workspaceScriptOf } from "@aide/contracts";

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * The allow rules of an eval attempt: a package-script command (`npm test`) is allowed only with
 * the digest of the task's own package.json scripts as they are before the session starts (the
 * rule an approval would have recorded), so a session that rewrites the test script is refused,
 * not run. Other commands pass unchanged; make and the build runners are not pre-approved.
 */
export function evalCommandRules(workspace: string, commands: readonly string[]): string[] {
  const packageJson = readIfPresent(join(workspace, "package.json"));
  return commands.map((command) => {
    const script = workspaceScriptOf(command);
    if (script === undefined || (script.runner !== "npm" && script.runner !== "pnpm" && script.runner !== "yarn")) return command;
    const texts = packageScriptTexts("package.json", packageJson, script);
    return commandRuleWithDigest(
      command,
      createHash("sha256")
        .update(scriptsDigestInput(texts, packageScriptsContext(packageJson)))
        .digest("hex"),
    );
  });
}
