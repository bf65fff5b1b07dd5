/**
 * One simple command: its words (quotes removed), the command strings nested in it, and whether
 * its stdin is redirected from a file, heredoc or here-string.
 */
export type SimpleCommand = { words: string[]; nested: string[]; stdinRedirected: boolean };

/** Commands joined by `|`; pipelines are separated by `;`, `&&`, `||`, `&` and newlines. */
export type Pipeline = SimpleCommand[];

export type ShellParse = { pipelines: Pipeline[]; nested: string[] };

type Cursor = { text: string; position: number };

/** Reads up to the `)` that closes a `$(`, `<(` or `>(` opened just before `cursor.position`. */
function readBalanced(cursor: Cursor): string {
  const start = cursor.position;
  let depth = 1;
  let quote: string | undefined;
  while (cursor.position < cursor.text.length) {
    const char = cursor.text[cursor.position];
    cursor.position += 1;
    if (quote !== undefined) {
      if (char === "\\" && quote === '"') cursor.position += 1;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === "\\") cursor.position += 1;
    else if (char === "'" || char === '"') quote = char;
    else if (char === "(") depth += 1;
    else if (char === ")") {
      depth -= 1;
      if (depth === 0) return cursor.text.slice(start, cursor.position - 1);
    }
  }
  return cursor.text.slice(start);
}

function readBacktick(cursor: Cursor): string {
  const end = cursor.text.indexOf("`", cursor.position);
  const inner = cursor.text.slice(cursor.position, end === -1 ? undefined : end);
  cursor.position = end === -1 ? cursor.text.length : end + 1;
  return inner;
}

const OPERATOR_CHARS = new Set([";", "&", "|", "\n", "(", ")"]);

/**
 * A small POSIX-shell reader: enough to find every command a string would run, not to run it.
 * Quotes are removed from words, command and process substitutions are collected as nested
 * command strings, `( … )` groups are flattened, and redirection targets are dropped from words.
 */
export function parseShell(text: string): ShellParse {
  const cursor: Cursor = { text, position: 0 };
  const pipelines: Pipeline[] = [];
  const allNested: string[] = [];
  let pipeline: Pipeline = [];
  let command: SimpleCommand = { words: [], nested: [], stdinRedirected: false };
  let word = "";
  let inWord = false;
  let skipNextWord = false;

  const endWord = () => {
    if (inWord) {
      if (skipNextWord) skipNextWord = false;
      else command.words.push(word);
    }
    word = "";
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    skipNextWord = false;
    if (command.words.length > 0 || command.nested.length > 0) pipeline.push(command);
    command = { words: [], nested: [], stdinRedirected: false };
  };
  const endPipeline = () => {
    endCommand();
    if (pipeline.length > 0) pipelines.push(pipeline);
    pipeline = [];
  };
  const addNested = (inner: string) => {
    command.nested.push(inner);
    allNested.push(inner);
    word += "$(…)";
    inWord = true;
  };

  while (cursor.position < text.length) {
    const char = text[cursor.position];
    const next = text[cursor.position + 1];
    cursor.position += 1;
    if (char === "\\") {
      if (next !== "\n" && next !== undefined) word += next;
      inWord = inWord || next !== "\n";
      cursor.position += 1;
    } else if (char === "'") {
      const end = text.indexOf("'", cursor.position);
      word += text.slice(cursor.position, end === -1 ? undefined : end);
      cursor.position = end === -1 ? text.length : end + 1;
      inWord = true;
    } else if (char === '"') {
      readDoubleQuoted(cursor, (piece) => (word += piece), addNested);
      inWord = true;
    } else if (char === "$" && next === "(") {
      cursor.position += 1;
      addNested(readBalanced(cursor));
    } else if ((char === "<" || char === ">") && next === "(") {
      cursor.position += 1;
      endWord();
      addNested(readBalanced(cursor));
      endWord();
    } else if (char === "`") {
      addNested(readBacktick(cursor));
    } else if (char === ">" || char === "<") {
      // A redirection: `2>` drops the fd digits, and the target (file or `&1`) is never a command.
      if (inWord && /^\d+$/.test(word)) {
        word = "";
        inWord = false;
      }
      endWord();
      if (char === "<") command.stdinRedirected = true;
      while (text[cursor.position] === ">" || text[cursor.position] === "<" || text[cursor.position] === "&" || text[cursor.position] === "|") {
        cursor.position += 1;
      }
      skipNextWord = true;
    } else if (/\s/.test(char) && char !== "\n") {
      endWord();
    } else if (OPERATOR_CHARS.has(char)) {
      if (char === "&" && next === ">") {
        endWord();
        continue;
      }
      if (char === "|" && next !== "|") {
        if (next === "&") cursor.position += 1;
        endCommand();
      } else if (char === "(" || char === ")") {
        endCommand();
      } else {
        if ((char === "&" && next === "&") || (char === "|" && next === "|")) cursor.position += 1;
        endPipeline();
      }
    } else {
      word += char;
      inWord = true;
    }
  }
  endPipeline();
  return { pipelines, nested: allNested };
}

function readDoubleQuoted(cursor: Cursor, append: (piece: string) => void, addNested: (inner: string) => void): void {
  const { text } = cursor;
  while (cursor.position < text.length) {
    const char = text[cursor.position];
    cursor.position += 1;
    if (char === '"') return;
    if (char === "\\") {
      append(text[cursor.position] ?? "");
      cursor.position += 1;
    } else if (char === "$" && text[cursor.position] === "(") {
      cursor.position += 1;
      addNested(readBalanced(cursor));
    } else if (char === "`") {
      addNested(readBacktick(cursor));
    } else {
      append(char);
    }
  }
}
