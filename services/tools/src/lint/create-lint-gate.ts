import { execaSync } from "execa";
import type { LintGate, LintVerdict } from "./lint-gate.js";
import { checkJson, checkJsonc, checkPython, checkScript, isJsonc, scriptKindOf, type SyntaxResult } from "./syntax-checkers.js";

function findPython(): string | undefined {
  try {
    const result = execaSync("python3", ["-c", "print(1)"], { reject: false, timeout: 10_000 });
    return result.exitCode === 0 ? "python3" : undefined;
  } catch {
    return undefined;
  }
}

function verdict(checker: string, result: SyntaxResult): LintVerdict {
  return result.ok ? { status: "ok", checker } : { status: "failed", checker, message: result.message };
}

/**
 * Syntax checks by file type: JSON strictly, JSONC (tsconfig, .vscode, *.jsonc) with comments and
 * trailing commas, TS/JS with the TypeScript parser, Python with `python3` when present. Other
 * types are skipped, and the verdict says so.
 */
export function createLintGate(options: { python?: string | null } = {}): LintGate {
  const python = options.python === null ? undefined : (options.python ?? findPython());
  return {
    async check(relativePath, content, signal) {
      const text = content.toString("utf8");
      if (relativePath.endsWith(".json") || isJsonc(relativePath)) {
        return isJsonc(relativePath) ? verdict("jsonc", checkJsonc(text, relativePath)) : verdict("json", checkJson(text));
      }
      const kind = scriptKindOf(relativePath);
      if (kind !== undefined) return verdict("typescript-parser", checkScript(text, relativePath, kind));
      if (relativePath.endsWith(".py") || relativePath.endsWith(".pyi")) {
        if (python === undefined) return { status: "skipped", checker: "python3 (not installed)" };
        return verdict("python3", await checkPython(python, content, relativePath, signal));
      }
      return { status: "skipped", checker: "none" };
    },
  };
}
