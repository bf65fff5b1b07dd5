/**
 * One simple command: its words (quotes removed), the command strings nested in it (`$(…)`,
 * backticks, `<(…)`), whether its stdin is redirected, and the bodies of its heredocs.
 */
export type SimpleCommand = { words: string[]; nested: string[]; stdinRedirected: boolean; heredocs: string[] };

/** Commands joined by `|`; pipelines are separated by `;`, `&&`, `||`, `&` and newlines. */
export type Pipeline = SimpleCommand[];

export type ShellParse = { pipelines: Pipeline[]; nested: string[] };

function emptyCommand(): SimpleCommand {
  return { words: [], nested: [], stdinRedirected: false, heredocs: [] };
}

/**
 * A small POSIX-shell reader: enough to find every command a string would run, not to run it.
 * Quotes are removed from words, command and process substitutions are collected as nested
 * command strings, `( … )` groups are flattened, redirection targets are dropped from words, and
 * heredoc bodies are kept apart (data for `cat`, a script for `bash`).
 */
class ShellReader {
  private position = 0;
  private readonly pipelines: Pipeline[] = [];
  private readonly allNested: string[] = [];
  private pipeline: Pipeline = [];
  private command = emptyCommand();
  private word = "";
  private inWord = false;
  private skipNextWord = false;
  private pendingHeredocs: Array<{ delimiter: string; stripTabs: boolean; command: SimpleCommand }> = [];

  constructor(private readonly text: string) {}

  read(): ShellParse {
    while (this.position < this.text.length) this.step();
    this.endPipeline();
    return { pipelines: this.pipelines, nested: this.allNested };
  }

  private step(): void {
    const { text } = this;
    const char = text[this.position];
    const next = text[this.position + 1];
    this.position += 1;
    if (char === "\\") this.escape(next);
    else if (char === "'") this.singleQuoted();
    else if (char === '"') this.doubleQuoted();
    else if (char === "$" && next === "(") {
      this.position += 1;
      this.addNested(this.readBalanced());
    } else if ((char === "<" || char === ">") && next === "(") {
      this.position += 1;
      this.endWord();
      this.addNested(this.readBalanced());
      this.endWord();
    } else if (char === "`") this.addNested(this.readBacktick());
    else if (char === "<" && next === "<" && text[this.position + 1] !== "<") this.heredoc();
    else if (char === ">" || char === "<") this.redirection(char);
    else if (char === "\n") this.newline();
    else if (/\s/.test(char)) this.endWord();
    else if (char === "&" && next === ">") this.endWord();
    else if (";&|()".includes(char)) this.operator(char, next);
    else {
      this.word += char;
      this.inWord = true;
    }
  }

  private escape(next: string | undefined): void {
    if (next !== undefined && next !== "\n") {
      this.word += next;
      this.inWord = true;
    }
    this.position += 1;
  }

  private singleQuoted(): void {
    const end = this.text.indexOf("'", this.position);
    this.word += this.text.slice(this.position, end === -1 ? undefined : end);
    this.position = end === -1 ? this.text.length : end + 1;
    this.inWord = true;
  }

  private doubleQuoted(): void {
    const { text } = this;
    this.inWord = true;
    while (this.position < text.length) {
      const char = text[this.position];
      this.position += 1;
      if (char === '"') return;
      if (char === "\\") {
        this.word += text[this.position] ?? "";
        this.position += 1;
      } else if (char === "$" && text[this.position] === "(") {
        this.position += 1;
        this.addNested(this.readBalanced());
      } else if (char === "`") {
        this.addNested(this.readBacktick());
      } else {
        this.word += char;
      }
    }
  }

  /** Reads up to the `)` that closes a `$(`, `<(` or `>(` opened just before the position. */
  private readBalanced(): string {
    const { text } = this;
    const start = this.position;
    let depth = 1;
    let quote: string | undefined;
    while (this.position < text.length) {
      const char = text[this.position];
      this.position += 1;
      if (quote !== undefined) {
        if (char === "\\" && quote === '"') this.position += 1;
        else if (char === quote) quote = undefined;
      } else if (char === "\\") this.position += 1;
      else if (char === "'" || char === '"') quote = char;
      else if (char === "(") depth += 1;
      else if (char === ")" && --depth === 0) return text.slice(start, this.position - 1);
    }
    return text.slice(start);
  }

  private readBacktick(): string {
    const end = this.text.indexOf("`", this.position);
    const inner = this.text.slice(this.position, end === -1 ? undefined : end);
    this.position = end === -1 ? this.text.length : end + 1;
    return inner;
  }

  /** `<<EOF` / `<<-'EOF'`: the body starts on the next line and belongs to this command. */
  private heredoc(): void {
    this.dropFdDigits();
    this.endWord();
    this.position += 1;
    const stripTabs = this.text[this.position] === "-";
    if (stripTabs) this.position += 1;
    const match = /^[ \t]*(['"]?)([\w.-]+)\1/.exec(this.text.slice(this.position, this.position + 200));
    this.command.stdinRedirected = true;
    if (match === null) return;
    this.position += match[0].length;
    this.pendingHeredocs.push({ delimiter: match[2], stripTabs, command: this.command });
  }

  private dropFdDigits(): void {
    if (this.inWord && /^\d+$/.test(this.word)) {
      this.word = "";
      this.inWord = false;
    }
  }

  /** A redirection: `2>` drops the fd digits, and the target (file or `&1`) is never a command. */
  private redirection(char: string): void {
    this.dropFdDigits();
    this.endWord();
    if (char === "<") this.command.stdinRedirected = true;
    while (">&|<".includes(this.text[this.position] ?? "x")) this.position += 1;
    this.skipNextWord = true;
  }

  private newline(): void {
    this.endPipeline();
    for (const pending of this.pendingHeredocs.splice(0)) pending.command.heredocs.push(this.readHeredocBody(pending));
  }

  private readHeredocBody(pending: { delimiter: string; stripTabs: boolean }): string {
    const lines: string[] = [];
    while (this.position < this.text.length) {
      const end = this.text.indexOf("\n", this.position);
      const line = this.text.slice(this.position, end === -1 ? undefined : end);
      this.position = end === -1 ? this.text.length : end + 1;
      const compared = pending.stripTabs ? line.replace(/^\t+/, "") : line;
      if (compared === pending.delimiter) break;
      lines.push(compared);
    }
    return lines.join("\n");
  }

  private operator(char: string, next: string | undefined): void {
    if (char === "|" && next !== "|") {
      if (next === "&") this.position += 1;
      this.endCommand();
    } else if (char === "(" || char === ")") {
      this.endCommand();
    } else {
      if ((char === "&" && next === "&") || (char === "|" && next === "|")) this.position += 1;
      this.endPipeline();
    }
  }

  private addNested(inner: string): void {
    this.command.nested.push(inner);
    this.allNested.push(inner);
    this.word += "$(…)";
    this.inWord = true;
  }

  private endWord(): void {
    if (this.inWord) {
      if (this.skipNextWord) this.skipNextWord = false;
      else this.command.words.push(this.word);
    }
    this.word = "";
    this.inWord = false;
  }

  private endCommand(): void {
    this.endWord();
    this.skipNextWord = false;
    const { command } = this;
    if (command.words.length > 0 || command.nested.length > 0 || command.stdinRedirected) this.pipeline.push(command);
    this.command = emptyCommand();
  }

  private endPipeline(): void {
    this.endCommand();
    if (this.pipeline.length > 0) this.pipelines.push(this.pipeline);
    this.pipeline = [];
  }
}

export function parseShell(text: string): ShellParse {
  return new ShellReader(text).read();
}
