/**
 * Wrappers that run another command: the options listed take a value, so the value is skipped
 * too. `timeout` also takes a duration before the command.
 */
const WRAPPERS: Record<string, { valueOptions: string[]; positional?: number }> = {
  sudo: { valueOptions: ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group"] },
  doas: { valueOptions: ["-u", "-C"] },
  env: { valueOptions: ["-u", "-C", "--unset", "--chdir"] },
  nohup: { valueOptions: [] },
  time: { valueOptions: ["-f", "-o"] },
  nice: { valueOptions: ["-n"] },
  ionice: { valueOptions: ["-c", "-n", "-p"] },
  timeout: { valueOptions: ["-s", "-k", "--signal", "--kill-after"], positional: 1 },
  stdbuf: { valueOptions: ["-i", "-o", "-e"] },
  exec: { valueOptions: ["-a"] },
  command: { valueOptions: [] },
  builtin: { valueOptions: [] },
  xargs: { valueOptions: ["-I", "-n", "-P", "-L", "-d", "-a", "-E", "-s"] },
  unbuffer: { valueOptions: [] },
  busybox: { valueOptions: [] },
  strace: { valueOptions: ["-e", "-o", "-p", "-s"] },
  watch: { valueOptions: ["-n", "-d"] },
  flock: { valueOptions: ["-w", "-E"], positional: 1 },
  proxychains: { valueOptions: ["-f"] },
  proxychains4: { valueOptions: ["-f"] },
  torsocks: { valueOptions: [] },
};

/** `/usr/bin/curl` and `curl.exe` are `curl`. */
export function commandBaseName(word: string): string {
  const base = word.split(/[\\/]/).pop() ?? word;
  return base.replace(/\.exe$/i, "").toLowerCase();
}

/** Words that introduce a command without being one (`if curl …; then wget …`). */
const SHELL_KEYWORDS = new Set(["{", "}", "!", "if", "then", "else", "elif", "do", "while", "until", "fi", "done"]);

/** The command that actually runs: normalized `name`, its `args`, and the `program` word as written. */
export type EffectiveCommand = { name: string; args: string[]; program: string };

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Strips env assignments and wrappers (`FOO=1 sudo -u me /usr/bin/curl x` → `curl x`) and
 * returns the words of the command that actually runs, its name normalized.
 */
export function effectiveCommand(words: string[]): EffectiveCommand | undefined {
  let index = 0;
  while (index < words.length) {
    const word = words[index];
    if (ASSIGNMENT.test(word) || SHELL_KEYWORDS.has(word)) {
      index += 1;
      continue;
    }
    const name = commandBaseName(word);
    const wrapper = WRAPPERS[name];
    if (wrapper === undefined) return { name, args: words.slice(index + 1), program: word };
    index += 1;
    const wrapperArgsStart = index;
    let positional = wrapper.positional ?? 0;
    while (index < words.length) {
      const current = words[index];
      if (current === "--") {
        index += 1;
        break;
      }
      if (current.startsWith("-") && current.length > 1) {
        index += wrapper.valueOptions.includes(current) ? 2 : 1;
      } else if (ASSIGNMENT.test(current)) {
        index += 1;
      } else if (positional > 0) {
        positional -= 1;
        index += 1;
      } else {
        break;
      }
    }
    // `env` alone, `sudo -l`: the wrapper is the command.
    if (index >= words.length) return { name, args: words.slice(wrapperArgsStart), program: word };
  }
  return undefined;
}

/** The first argument that is not an option, skipping the values of the given options. */
export function firstPositional(args: string[], valueOptions: string[] = []): { word: string; rest: string[] } | undefined {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (arg.startsWith("-") && arg.length > 1) {
      if (valueOptions.includes(arg)) index += 1;
      continue;
    }
    return { word: arg, rest: args.slice(index + 1) };
  }
  return undefined;
}
