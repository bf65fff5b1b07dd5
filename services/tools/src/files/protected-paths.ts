import type { ProtectedKind } from "@aide/contracts";
import { globToRegExp } from "../search/glob-to-regexp.js";
import { gitDirectoryReasons, packageScriptsReason, protectedPatterns } from "./protected-patterns.js";
import { confusablePath, pathSkeleton } from "./confusable-names.js";

export interface ProtectedFlag {
  path: string;
  reason: string;
  kind: ProtectedKind;
}

/** What the workspace adds to the fixed table: the git directories found in it (`gitdir: .gitstore`). */
export interface ProtectedContext {
  /** Workspace-relative git directories of the repositories in the workspace. */
  gitDirectories?: readonly string[];
}

const compiled = protectedPatterns.map((row) => ({ ...row, regexps: row.globs.map((glob) => new RegExp(globToRegExp(glob).source, "i")) }));

function matchTable(path: string, context: ProtectedContext): { kind: ProtectedKind; reason: string } | undefined {
  const row = compiled.find((candidate) => candidate.regexps.some((regexp) => regexp.test(path)));
  if (row !== undefined) return { kind: row.kind, reason: row.reason };
  const lower = path.toLowerCase();
  for (const gitDirectory of context.gitDirectories ?? []) {
    const base = gitDirectory.toLowerCase();
    if (lower !== base && !lower.startsWith(`${base}/`)) continue;
    const hooks = lower.startsWith(`${base}/hooks/`) || lower === `${base}/hooks`;
    return { kind: "git_internals", reason: `${hooks ? gitDirectoryReasons.hooks : gitDirectoryReasons.other} (${gitDirectory})` };
  }
  return undefined;
}

/**
 * The protected reason of a workspace-relative path, on its NFC form; a name that only becomes a
 * protected one once look-alike letters are mapped to Latin and invisible characters dropped
 * (`.gіt/hooks` with a Cyrillic і, `AGENTS\u200B.md`) is protected as what it poses as.
 */
export function protectedMatch(relativePath: string, context: ProtectedContext = {}): { kind: ProtectedKind; reason: string } | undefined {
  const normalized = relativePath.normalize("NFC");
  const direct = matchTable(normalized, context);
  if (direct !== undefined) return direct;
  const skeleton = pathSkeleton(normalized);
  if (skeleton === normalized) return undefined;
  const posing = matchTable(skeleton, context);
  return posing === undefined ? undefined : { kind: posing.kind, reason: `${posing.reason}; the name reads as ${JSON.stringify(skeleton)}` };
}

export function protectedReason(relativePath: string, context: ProtectedContext = {}): string | undefined {
  return protectedMatch(relativePath, context)?.reason;
}

/** The protected flags of paths, plus a `confusable_name` flag for a path with a deceptive component. */
export function protectedFlags(paths: readonly string[], context: ProtectedContext = {}): ProtectedFlag[] {
  return paths.flatMap((path) => {
    const flags: ProtectedFlag[] = [];
    const match = protectedMatch(path, context);
    if (match !== undefined) flags.push({ path, ...match });
    // The name as given: its NFC form would hide a decomposed name.
    const confusable = confusablePath(path);
    if (confusable !== undefined) {
      flags.push({ path, kind: "confusable_name", reason: `the name ${JSON.stringify(confusable.component)} ${confusable.why}: it may not be the file it looks like` });
    }
    return flags;
  });
}

function scriptsOf(data: Buffer | null): string | undefined {
  if (data === null) return "{}";
  try {
    const parsed = JSON.parse(data.toString("utf8").replace(/^\uFEFF/, "")) as { scripts?: unknown };
    return JSON.stringify(parsed.scripts ?? {});
  } catch {
    return undefined;
  }
}

/**
 * Flags for file changes: the path rules, plus package.json when its `scripts` (which npm runs on
 * install, test and build) change or cannot be compared.
 */
export function protectedFlagsForChanges(changes: ReadonlyArray<{ path: string; before: Buffer | null; after: Buffer }>, context: ProtectedContext = {}): ProtectedFlag[] {
  const flags = protectedFlags(
    changes.map((c) => c.path),
    context,
  );
  for (const change of changes) {
    if ((change.path.split("/").pop() ?? "") !== "package.json") continue;
    const before = scriptsOf(change.before);
    const after = scriptsOf(change.after);
    if (before === undefined || after === undefined || before !== after) {
      flags.push({ path: change.path, kind: "package_scripts", reason: packageScriptsReason });
    }
  }
  return flags;
}
