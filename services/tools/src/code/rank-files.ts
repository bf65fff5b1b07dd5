import type { FileTags } from "./code-definition.js";

export interface RankFocus {
  /** Workspace-relative files or folders the task names. */
  paths: readonly string[];
  /** Identifiers the task names. */
  identifiers: readonly string[];
}

export interface RankedFile {
  path: string;
  score: number;
  /** It is, lies under, or defines something the focus names. */
  focused: boolean;
  /** How often each of its definitions is referenced from other files. */
  referencedBy: Map<string, number>;
}

const damping = 0.85;
const iterations = 40;
/** A name defined in more files than this (`get`, `load`, `__init__`) says nothing about which one is meant: no edges (they would grow with the square of the tree). */
const maxDefiners = 20;

function underPath(path: string, focus: string): boolean {
  const clean = focus.replace(/^\.\/+/, "").replace(/\/+$/, "");
  return clean === "" || clean === "." || path === clean || path.startsWith(`${clean}/`);
}

/**
 * A PageRank over files: an edge from each file to each file defining a name it references,
 * weighted by the square root of the references (a name defined in over 5 files, or starting with
 * `_`, counts a tenth; one defined in over 20 none; a name the focus names ten times), restarting on the focus files when there
 * are any (personalised), uniformly otherwise. Focus files come first, then by score.
 */
export function rankFiles(files: ReadonlyMap<string, FileTags>, focus: RankFocus): RankedFile[] {
  const paths = [...files.keys()].sort();
  const index = new Map(paths.map((path, position) => [path, position]));
  const definers = new Map<string, number[]>();
  paths.forEach((path, position) => {
    for (const definition of files.get(path)?.definitions ?? []) {
      const list = definers.get(definition.name) ?? [];
      if (list[list.length - 1] !== position) list.push(position);
      definers.set(definition.name, list);
    }
  });
  const focusNames = new Set(focus.identifiers);
  const edges: Array<Map<number, number>> = paths.map(() => new Map());
  const referencedBy: Array<Map<string, number>> = paths.map(() => new Map());
  paths.forEach((path, from) => {
    const counts = new Map<string, number>();
    for (const name of files.get(path)?.references ?? []) if (definers.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
    for (const [name, count] of counts) {
      const targets = (definers.get(name) ?? []).filter((to) => to !== from);
      if (targets.length === 0 || targets.length > maxDefiners) continue;
      let multiplier = 1;
      if (name.startsWith("_") || targets.length > 5) multiplier *= 0.1;
      if (focusNames.has(name)) multiplier *= 10;
      for (const to of targets) {
        edges[from].set(to, (edges[from].get(to) ?? 0) + (multiplier * Math.sqrt(count)) / targets.length);
        referencedBy[to].set(name, (referencedBy[to].get(name) ?? 0) + count);
      }
    }
  });
  const focused = paths.map((path) => focus.paths.some((focusPath) => underPath(path, focusPath)) || (files.get(path)?.definitions ?? []).some((definition) => focusNames.has(definition.name)));
  const anyFocus = focused.some(Boolean);
  const restart: number[] = paths.map((_, position) => (anyFocus ? (focused[position] ? 1 : 0) : 1));
  const restartTotal = restart.reduce((sum, value) => sum + value, 0) || 1;
  const personal = restart.map((value) => value / restartTotal);
  let rank = [...personal];
  const outTotals = edges.map((out) => [...out.values()].reduce((sum, value) => sum + value, 0));
  for (let round = 0; round < iterations && paths.length > 0; round += 1) {
    const next = personal.map((value) => (1 - damping) * value);
    let dangling = 0;
    rank.forEach((value, from) => {
      if (outTotals[from] === 0) dangling += value;
      else for (const [to, weight] of edges[from]) next[to] += (damping * value * weight) / outTotals[from];
    });
    for (let position = 0; position < next.length; position += 1) next[position] += damping * dangling * personal[position];
    rank = next;
  }
  return paths
    .map((path) => ({ path, score: rank[index.get(path) ?? 0], focused: focused[index.get(path) ?? 0], referencedBy: referencedBy[index.get(path) ?? 0] }))
    .sort((left, right) => Number(right.focused) - Number(left.focused) || right.score - left.score || (left.path < right.path ? -1 : 1));
}
