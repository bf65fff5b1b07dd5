/**
 * Streams the model's text to the terminal without its XML tool-call blocks (each call is printed
 * as its own line when it starts). A line that begins with `<name>` opens a block that ends at
 * `</name>`; anything else passes through as it arrives, except a line start that could still
 * become a tag, which waits for the next chunk.
 */
export function createProseFilter() {
  let pending = "";
  let atLineStart = true;
  let closing: string | undefined;
  let skipNewline = false;

  function push(text: string): string {
    pending += text;
    let out = "";
    for (;;) {
      if (closing) {
        const end = pending.indexOf(closing);
        if (end < 0) {
          pending = pending.slice(Math.max(0, pending.length - closing.length));
          return out;
        }
        pending = pending.slice(end + closing.length);
        closing = undefined;
        atLineStart = true;
        skipNewline = true;
        continue;
      }
      if (pending.length === 0) return out;
      if (skipNewline) {
        skipNewline = false;
        if (pending.startsWith("\n")) pending = pending.slice(1);
        continue;
      }
      if (atLineStart) {
        const open = /^[ \t]*<([a-z_]+)>/.exec(pending);
        if (open) {
          closing = `</${open[1]}>`;
          pending = pending.slice(open[0].length);
          continue;
        }
        // Could still turn into `<name>`: wait for more text.
        if (/^[ \t]*(<[a-z_]*)?$/.test(pending)) return out;
      }
      const newline = pending.indexOf("\n");
      if (newline < 0) {
        out += pending;
        pending = "";
        atLineStart = false;
        return out;
      }
      out += pending.slice(0, newline + 1);
      pending = pending.slice(newline + 1);
      atLineStart = true;
    }
  }

  return {
    push,
    /** What is still held back when the reply ends (an unfinished tag-like line is prose after all). */
    flush(): string {
      const rest = closing ? "" : pending;
      pending = "";
      closing = undefined;
      atLineStart = true;
      return rest;
    },
  };
}
