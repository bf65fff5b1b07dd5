import ts from "typescript";
import { execa } from "execa";

export type SyntaxResult = { ok: true } | { ok: false; message: string };

const jsoncNames = [
  /^tsconfig(\..+)?\.json$/,
  /^jsconfig(\..+)?\.json$/,
  /^\.eslintrc(\.json)?$/,
  /^\.babelrc(\.json)?$/,
  /^devcontainer\.json$/,
  /^\.devcontainer\.json$/,
  /^tslint\.json$/,
  /^\.swcrc$/,
  /^\.jshintrc$/,
  /^api-extractor\.json$/,
  /^typedoc\.json$/,
];

export function isJsonc(relativePath: string): boolean {
  const base = relativePath.split("/").pop() ?? relativePath;
  return relativePath.endsWith(".jsonc") || relativePath.endsWith(".code-workspace") || relativePath.startsWith(".vscode/") || jsoncNames.some((p) => p.test(base));
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function checkJson(text: string): SyntaxResult {
  try {
    JSON.parse(stripBom(text));
    return { ok: true };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

function describeDiagnostics(sourceFile: ts.SourceFile, diagnostics: readonly ts.Diagnostic[]): string {
  return diagnostics
    .slice(0, 5)
    .map((d) => {
      const { line, character } = sourceFile.getLineAndCharacterOfPosition(d.start ?? 0);
      return `line ${line + 1}, column ${character + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    })
    .join("\n");
}

/** JSON with comments and trailing commas (tsconfig.json, *.jsonc, .vscode/*.json). */
export function checkJsonc(text: string, fileName: string): SyntaxResult {
  const sourceFile = ts.parseJsonText(fileName, stripBom(text));
  const diagnostics = (sourceFile as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics ?? [];
  return diagnostics.length === 0 ? { ok: true } : { ok: false, message: describeDiagnostics(sourceFile, diagnostics) };
}

const scriptKinds: Record<string, ts.ScriptKind> = {
  ".ts": ts.ScriptKind.TS,
  ".mts": ts.ScriptKind.TS,
  ".cts": ts.ScriptKind.TS,
  ".tsx": ts.ScriptKind.TSX,
  ".js": ts.ScriptKind.JS,
  ".mjs": ts.ScriptKind.JS,
  ".cjs": ts.ScriptKind.JS,
  ".jsx": ts.ScriptKind.JSX,
};

export function scriptKindOf(relativePath: string): ts.ScriptKind | undefined {
  const match = /\.[a-z]+$/.exec(relativePath);
  return match ? scriptKinds[match[0]] : undefined;
}

/** Syntax only: the TypeScript parser's own diagnostics, no type checking. */
export function checkScript(text: string, fileName: string, kind: ts.ScriptKind): SyntaxResult {
  const sourceFile = ts.createSourceFile(fileName, stripBom(text), ts.ScriptTarget.Latest, false, kind);
  const diagnostics = (sourceFile as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics ?? [];
  return diagnostics.length === 0 ? { ok: true } : { ok: false, message: describeDiagnostics(sourceFile, diagnostics) };
}

/** `compile()` only parses; nothing in the file runs. */
export async function checkPython(python: string, content: Buffer, fileName: string, signal?: AbortSignal): Promise<SyntaxResult> {
  const result = await execa(python, ["-I", "-c", "import sys; compile(sys.stdin.buffer.read(), sys.argv[1], 'exec')", fileName], {
    input: content,
    reject: false,
    timeout: 15_000,
    cancelSignal: signal,
    extendEnv: false,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", LANG: "C.UTF-8" },
    stripFinalNewline: true,
  });
  if (result.exitCode === 0) return { ok: true };
  const lines = String(result.stderr)
    .split("\n")
    .filter((l) => !l.startsWith("Traceback") && !/^\s+File "<string>"/.test(l));
  return { ok: false, message: lines.slice(-6).join("\n") || `python3 exited with ${result.exitCode}` };
}
