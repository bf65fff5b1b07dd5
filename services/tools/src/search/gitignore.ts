import { globToRegExp } from "./glob-to-regexp.js";

interface IgnoreRule {
  regex: RegExp;
  negated: boolean;
  directoryOnly: boolean;
  /** Anchored rules match the path relative to the .gitignore's directory; others the name at any depth. */
  anchored: boolean;
}

/** The rules of one .gitignore file, relative to the directory that holds it. */
export class IgnoreFile {
  private readonly rules: IgnoreRule[];
  constructor(text: string) {
    this.rules = text
      .split(/\r?\n/)
      .map((line) => line.replace(/(?<!\\)\s+$/, ""))
      .filter((line) => line !== "" && !line.startsWith("#"))
      .map((line) => {
        const negated = line.startsWith("!");
        let pattern = negated ? line.slice(1) : line;
        pattern = pattern.replace(/^\\([#!])/, "$1");
        const directoryOnly = pattern.endsWith("/");
        if (directoryOnly) pattern = pattern.slice(0, -1);
        const anchored = pattern.includes("/");
        pattern = pattern.replace(/^\//, "");
        return { regex: globToRegExp(pattern), negated, directoryOnly, anchored };
      });
  }

  /** true = ignored, false = explicitly re-included, undefined = no rule applies. */
  test(relativePath: string, isDirectory: boolean): boolean | undefined {
    const name = relativePath.split("/").pop() ?? relativePath;
    let verdict: boolean | undefined;
    for (const rule of this.rules) {
      if (rule.directoryOnly && !isDirectory) continue;
      const subject = rule.anchored ? relativePath : name;
      if (rule.regex.test(subject) || (!rule.anchored && rule.regex.test(relativePath))) verdict = !rule.negated;
    }
    return verdict;
  }
}
