import { createInterface } from "node:readline";
import { dirname, isAbsolute, join, relative } from "node:path";
import ts from "typescript";
import type { Diagnostic } from "./diagnostic.js";

/**
 * The TypeScript checker as a child process of the tools service (one per workspace, kept warm):
 * JSON lines in, JSON lines out. A request names a file and one or more versions of its text; the
 * answer is the file's syntactic and semantic diagnostics for each version. It runs in a mount
 * namespace holding only the system, Node, the install and the workspace (read-only), so reading
 * by name cannot reach anything else.
 */
interface CheckRequest {
  id: number;
  root: string;
  path: string;
  versions: string[];
}

const services = new Map<string, { service: ts.LanguageService; overlay: Map<string, { text: string; version: number }>; roots: string[] }>();

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function serviceFor(root: string, file: string) {
  const config = ts.findConfigFile(dirname(file), ts.sys.fileExists);
  const configPath = config !== undefined && inside(root, config) ? config : undefined;
  const key = configPath ?? `${root}\0(no tsconfig)`;
  let entry = services.get(key);
  if (entry === undefined) {
    const parsed = configPath === undefined ? undefined : ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    const options: ts.CompilerOptions = parsed?.options ?? {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      noEmit: true,
    };
    const overlay = new Map<string, { text: string; version: number }>();
    const roots = [...(parsed?.fileNames ?? [])];
    const host: ts.LanguageServiceHost = {
      getScriptFileNames: () => roots,
      getScriptVersion: (name) => String(overlay.get(name)?.version ?? ts.sys.getModifiedTime?.(name)?.getTime() ?? 0),
      getScriptSnapshot: (name) => {
        const text = overlay.get(name)?.text ?? ts.sys.readFile(name);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => (configPath !== undefined ? dirname(configPath) : root),
      getCompilationSettings: () => options,
      getDefaultLibFileName: (settings) => ts.getDefaultLibFilePath(settings),
      fileExists: (name) => overlay.has(name) || ts.sys.fileExists(name),
      readFile: (name) => overlay.get(name)?.text ?? ts.sys.readFile(name),
      readDirectory: ts.sys.readDirectory,
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
    };
    entry = { service: ts.createLanguageService(host, ts.createDocumentRegistry()), overlay, roots };
    services.set(key, entry);
  }
  if (!entry.roots.includes(file)) entry.roots.push(file);
  return entry;
}

function describe(diagnostic: ts.Diagnostic, source: string): Diagnostic {
  const file = diagnostic.file;
  const position = file !== undefined && diagnostic.start !== undefined ? file.getLineAndCharacterOfPosition(diagnostic.start) : { line: 0, character: 0 };
  const lineText = source.split("\n")[position.line] ?? "";
  return {
    line: position.line + 1,
    column: position.character + 1,
    code: `TS${diagnostic.code}`,
    severity: diagnostic.category === ts.DiagnosticCategory.Error ? "error" : "warning",
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, " "),
    text: lineText.trim(),
  };
}

let version = 0;
function check(request: CheckRequest): Diagnostic[][] {
  const file = join(request.root, request.path);
  const entry = serviceFor(request.root, file);
  const results = request.versions.map((text) => {
    version += 1;
    entry.overlay.set(file, { text, version });
    const found = [...entry.service.getSyntacticDiagnostics(file), ...entry.service.getSemanticDiagnostics(file)];
    return found.filter((d) => d.category === ts.DiagnosticCategory.Error || d.category === ts.DiagnosticCategory.Warning).map((d) => describe(d, text));
  });
  entry.overlay.delete(file);
  return results;
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  let request: CheckRequest;
  try {
    request = JSON.parse(line) as CheckRequest;
  } catch {
    return;
  }
  let reply: unknown;
  try {
    reply = { id: request.id, results: check(request) };
  } catch (error) {
    reply = { id: request.id, error: (error as Error).message };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
});
lines.on("close", () => process.exit(0));
