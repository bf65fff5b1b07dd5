type Close = { start: number; end: number };

/**
 * Every closing tag of a text, by lowercase name, found in one pass. Lookups are binary searches,
 * so a degenerate reply (thousands of stray tags, a repetition loop) stays linear-ish instead of
 * rescanning the text for each tag.
 */
export class CloseTagIndex {
  private readonly byName = new Map<string, Close[]>();

  constructor(text: string) {
    const pattern = /<\/\s*([A-Za-z_][\w-]*)\s*>/g;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const name = match[1].toLowerCase();
      let list = this.byName.get(name);
      if (list === undefined) {
        list = [];
        this.byName.set(name, list);
      }
      list.push({ start: match.index, end: pattern.lastIndex });
    }
  }

  /** Closing tags of `name` that start at or after `from`, in order. */
  *after(name: string, from: number): Generator<Close> {
    const list = this.byName.get(name.toLowerCase());
    if (list === undefined) return;
    for (let index = firstAtOrAfter(list, from); index < list.length; index += 1) yield list[index];
  }

  /** The earliest closing tag of any of `names` at or after `from`. */
  next(names: Iterable<string>, from: number): Close | undefined {
    let best: Close | undefined;
    for (const name of names) {
      const list = this.byName.get(name.toLowerCase());
      if (list === undefined) continue;
      const candidate = list[firstAtOrAfter(list, from)];
      if (candidate !== undefined && (best === undefined || candidate.start < best.start)) best = candidate;
    }
    return best;
  }
}

function firstAtOrAfter(list: Close[], from: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list[middle].start < from) low = middle + 1;
    else high = middle;
  }
  return low;
}
