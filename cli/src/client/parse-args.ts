/** A small argv parser: `--name value`, `--name=value`, boolean `--flag`, and positionals. */
export function parseArgs(argv: string[], booleans: string[] = []): { positionals: string[]; options: Record<string, string | true> } {
  const positionals: string[] = [];
  const options: Record<string, string | true> = {};
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    if (arg === "--") {
      positionals.push(...argv.slice(index + 1));
      break;
    }
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (inline !== undefined) options[name] = inline;
    else if (booleans.includes(name) || index + 1 >= argv.length || argv[index + 1].startsWith("--")) options[name] = true;
    else options[name] = argv[++index];
  }
  return { positionals, options };
}

export function stringOption(options: Record<string, string | true>, name: string): string | undefined {
  const value = options[name];
  return typeof value === "string" ? value : undefined;
}

/** Every value of a repeatable option (`--name a --name b`, `--name=c`), in order. */
export function repeatedOption(argv: string[], name: string): string[] {
  const values: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    if (arg === "--") break;
    if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3));
    else if (arg === `--${name}` && index + 1 < argv.length && !argv[index + 1].startsWith("--")) values.push(argv[++index]);
  }
  return values;
}
