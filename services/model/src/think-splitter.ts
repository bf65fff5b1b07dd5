/**
 * Separates a thinking model's `<think>…</think>` reasoning from its answer as text streams in,
 * so reasoning never reaches the user-facing deltas. Tags split across chunks are held back until
 * they can be told apart from ordinary text.
 */
const OPEN = "<think>";
const CLOSE = "</think>";

export class ThinkSplitter {
  text = "";
  reasoning = "";
  private inside = false;
  private held = "";

  constructor(private readonly onText: (text: string) => void = () => undefined) {}

  push(chunk: string): void {
    let input = this.held + chunk;
    this.held = "";
    while (input.length > 0) {
      const tag = this.inside ? CLOSE : OPEN;
      const at = input.indexOf(tag);
      if (at >= 0) {
        this.emit(input.slice(0, at));
        this.inside = !this.inside;
        input = input.slice(at + tag.length);
        continue;
      }
      // Hold back a tail that could be the start of the tag.
      let keep = 0;
      for (let length = Math.min(tag.length - 1, input.length); length > 0; length--) {
        if (tag.startsWith(input.slice(-length))) {
          keep = length;
          break;
        }
      }
      this.emit(input.slice(0, input.length - keep));
      this.held = input.slice(input.length - keep);
      break;
    }
  }

  /** Releases held-back text at the end of the stream. */
  end(): void {
    const rest = this.held;
    this.held = "";
    this.emit(rest);
  }

  private emit(text: string): void {
    if (text.length === 0) return;
    if (this.inside) {
      this.reasoning += text;
      return;
    }
    this.text += text;
    this.onText(text);
  }

  static split(text: string): { text: string; reasoning: string } {
    const splitter = new ThinkSplitter();
    splitter.push(text);
    splitter.end();
    return { text: splitter.text, reasoning: splitter.reasoning };
  }
}
