import type { Command } from "commander";

/** The edit distance between two words (insertions, deletions, substitutions, adjacent swaps). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/** The nearest of `names` to `word`, when it is near enough to be a slip (as commander suggests for flags). */
export function nearestName(word: string, names: string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const d = distance(word, name);
    if (d <= Math.max(1, Math.floor(name.length / 3)) && (!best || d < best.distance)) best = { name, distance: d };
  }
  return best?.name;
}

/**
 * The first word of argv that names no subcommand where the program expects one, with the path
 * of commands before it: commander answers `aide nosuchcmd --help` with the top-level help and
 * exit 0, because help is handled before the unknown command is. A command with an action of its
 * own takes any further words as its arguments, so the walk stops there.
 */
export function findUnknownCommand(program: Command, argv: string[]): { path: string[]; word: string; suggestion?: string } | undefined {
  let command = program;
  const path = [program.name()];
  for (const word of argv) {
    if (word.startsWith("-")) return undefined;
    if (command.commands.length === 0 || command.registeredArguments.length > 0) return undefined;
    const next = command.commands.find((child) => child.name() === word || child.aliases().includes(word));
    if (!next) {
      if (word === "help") return undefined;
      const names = command.commands.map((child) => child.name());
      const suggestion = nearestName(word, names);
      return { path, word, ...(suggestion ? { suggestion } : {}) };
    }
    command = next;
    path.push(word);
  }
  return undefined;
}
