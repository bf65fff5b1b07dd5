/** One explicit rule of a makefile: its header line and its tab-indented recipe. */
interface MakeRule {
  name: string;
  text: string;
  prerequisites: string[];
}

const header = /^([^\s:#=][^:=]*?)\s*::?(?!=)(.*)$/;

/** The explicit rule of `target` (undefined: the default target, the first not starting with "."). */
function findRule(lines: string[], target: string | undefined): MakeRule | undefined {
  for (let index = 0; index < lines.length; index += 1) {
    const match = header.exec(lines[index]);
    if (!match) continue;
    const names = match[1].trim().split(/\s+/);
    const wanted = target === undefined ? !names[0].startsWith(".") : names.includes(target);
    if (!wanted) continue;
    const recipe = [lines[index]];
    for (let next = index + 1; next < lines.length && (lines[next].startsWith("\t") || lines[next - 1].endsWith("\\")); next += 1) recipe.push(lines[next]);
    // `target: VAR = value` sets a variable, it names no prerequisites; `| x` order-only ones count.
    const rest = match[2].split(";")[0];
    const prerequisites = rest.includes("=") ? [] : rest.split(/\s+/).filter((word) => word !== "" && word !== "|" && !/[$%*?]/.test(word));
    return { name: target ?? names[0], text: recipe.join("\n"), prerequisites };
  }
  return undefined;
}

/**
 * The rules a `make` of `targets` runs by the makefile's own text: each target's rule, then the
 * rules of its prerequisites that the makefile defines explicitly (breadth first, at most 10 in
 * all). A prerequisite without a rule is a file; a named target without one says so.
 */
export function makeRules(makefile: string, targets: ReadonlyArray<string | undefined>): Array<{ name: string; text: string }> {
  const lines = makefile.split("\n");
  const shown: Array<{ name: string; text: string }> = [];
  const seen = new Set<string>();
  const queue: Array<{ target: string | undefined; named: boolean }> = targets.slice(0, 10).map((target) => ({ target, named: true }));
  while (queue.length > 0 && shown.length < 10) {
    const { target, named } = queue.shift()!;
    const rule = findRule(lines, target);
    if (rule === undefined) {
      if (named) shown.push({ name: target ?? "(default target)", text: "(no explicit rule: an implicit rule or an included makefile applies)" });
      continue;
    }
    if (seen.has(rule.name)) continue;
    seen.add(rule.name);
    shown.push({ name: rule.name, text: rule.text });
    for (const prerequisite of rule.prerequisites) if (!seen.has(prerequisite)) queue.push({ target: prerequisite, named: false });
  }
  return shown;
}

/** The files a makefile includes by a literal name (`include a.mk`, `-include b.mk`, `sinclude c.mk`). */
export function makeIncludes(makefile: string): string[] {
  const names: string[] = [];
  for (const line of makefile.split("\n")) {
    const match = /^\s*(?:-include|sinclude|include)\s+(.+)$/.exec(line);
    if (!match) continue;
    for (const name of match[1].split("#")[0].trim().split(/\s+/)) if (name !== "" && !/[$*?[]/.test(name) && !name.startsWith("/") && !name.split("/").includes("..")) names.push(name);
  }
  return names.slice(0, 10);
}
