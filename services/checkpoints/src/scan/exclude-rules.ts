/**
 * Path matching for excludes and .gitignore files. Patterns follow .gitignore: `name` matches a
 * file or folder at any depth, `dir/` only folders, a pattern with an inner or leading `/` is
 * anchored at its base, `*` `?` `[...]` and `**` are globs, `!pattern` re-includes.
 */
export interface IgnoreRule {
  regex: RegExp;
  negated: boolean;
  directoryOnly: boolean;
  /** Matches against the name only (no slash in the pattern) rather than the relative path. */
  basenameOnly: boolean;
  /** Folder (workspace-relative, "" for the root) whose files the rule applies to. */
  base: string;
}

function globToRegex(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atSegmentStart = i === 0 || glob[i - 1] === "/";
        const atSegmentEnd = i + 2 === glob.length || glob[i + 2] === "/";
        if (atSegmentStart && atSegmentEnd) {
          // "**/" matches zero or more folders; a trailing "**" everything below.
          if (glob[i + 2] === "/") {
            out += "(?:.*/)?";
            i += 2;
          } else {
            out += ".*";
            i += 1;
          }
          continue;
        }
      }
      out += "[^/]*";
    } else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end === -1) {
        out += "\\[";
        continue;
      }
      let body = glob.slice(i + 1, end);
      if (body.startsWith("!")) body = "^" + body.slice(1);
      out += `[${body.replace(/\\/g, "\\\\")}]`;
      i = end;
    } else if (c === "\\" && i + 1 < glob.length) {
      out += "\\" + glob[i + 1];
      i++;
    } else out += c.replace(/[.+^${}()|\]\\]/g, "\\$&");
  }
  return out;
}

export function parseIgnoreRule(line: string, base = ""): IgnoreRule | undefined {
  let pattern = line.replace(/(?<!\\)\s+$/, "");
  if (pattern === "" || pattern.startsWith("#")) return undefined;
  let negated = false;
  if (pattern.startsWith("!")) {
    negated = true;
    pattern = pattern.slice(1);
  } else if (pattern.startsWith("\\!") || pattern.startsWith("\\#")) pattern = pattern.slice(1);
  let directoryOnly = false;
  if (pattern.endsWith("/")) {
    directoryOnly = true;
    pattern = pattern.replace(/\/+$/, "");
  }
  if (pattern === "") return undefined;
  const basenameOnly = !pattern.includes("/");
  if (pattern.startsWith("/")) pattern = pattern.slice(1);
  return { regex: new RegExp(`^${globToRegex(pattern)}$`), negated, directoryOnly, basenameOnly, base };
}

export function parseIgnoreFile(text: string, base: string): IgnoreRule[] {
  return text
    .split(/\r?\n/)
    .map((line) => parseIgnoreRule(line, base))
    .filter((r): r is IgnoreRule => r !== undefined);
}

/** The last matching rule decides (as in git); undefined when no rule matches. */
export function matchRules(rules: readonly IgnoreRule[], relativePath: string, name: string, isDirectory: boolean): boolean | undefined {
  let result: boolean | undefined;
  for (const rule of rules) {
    if (rule.directoryOnly && !isDirectory) continue;
    if (rule.base !== "" && !relativePath.startsWith(rule.base + "/")) continue;
    const subject = rule.basenameOnly ? name : rule.base === "" ? relativePath : relativePath.slice(rule.base.length + 1);
    if (rule.regex.test(subject)) result = !rule.negated;
  }
  return result;
}

/** Rules prepared for the hot path: plain names become set lookups when no rule negates. */
export interface CompiledRules {
  rules: readonly IgnoreRule[];
  names: Set<string>;
  directoryNames: Set<string>;
  rest: readonly IgnoreRule[];
  negates: boolean;
}

const plainName = /^[^*?[\\]+$/;

export function compileRules(rules: readonly IgnoreRule[], sources: readonly string[] = []): CompiledRules {
  const names = new Set<string>();
  const directoryNames = new Set<string>();
  const rest: IgnoreRule[] = [];
  rules.forEach((rule, i) => {
    const source = sources[i]?.replace(/\/+$/, "");
    if (rule.basenameOnly && rule.base === "" && !rule.negated && source !== undefined && plainName.test(source)) {
      (rule.directoryOnly ? directoryNames : names).add(source);
    } else rest.push(rule);
  });
  return { rules, names, directoryNames, rest, negates: rules.some((r) => r.negated) };
}

export function matchCompiled(compiled: CompiledRules, relativePath: string, name: string, isDirectory: boolean): boolean {
  if (compiled.negates) return matchRules(compiled.rules, relativePath, name, isDirectory) === true;
  if (compiled.names.has(name) || (isDirectory && compiled.directoryNames.has(name))) return true;
  return compiled.rest.length > 0 && matchRules(compiled.rest, relativePath, name, isDirectory) === true;
}
