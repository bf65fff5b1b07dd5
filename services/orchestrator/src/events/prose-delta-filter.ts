/**
 * Streams only the model's prose as `model.delta`: text is passed on until a known tool's tag
 * opens, and nothing after it (a write body or patch must never reach an event). A possible tag
 * prefix at the end of the text is held back until the next delta decides it, and so are a trailing
 * CR and a trailing high surrogate (see `push`).
 */
export class ProseDeltaFilter {
  private text = "";
  private emitted = 0;
  private stopped = false;
  private readonly tagPattern: RegExp;

  constructor(toolNames: string[]) {
    const names = toolNames.map((name) => name.replace(/[^A-Za-z0-9_-]/g, "")).filter((name) => name.length > 0);
    this.tagPattern = names.length > 0 ? new RegExp(`<\\s*(?:${names.join("|")})\\b`, "i") : /$^/;
  }

  /** Returns the part of the text that may be published now ("" when none). */
  push(delta: string): string {
    if (this.stopped) return "";
    this.text += delta;
    const match = this.tagPattern.exec(this.text);
    if (match) {
      this.stopped = true;
      const visible = this.text.slice(this.emitted, match.index);
      this.emitted = match.index;
      return visible;
    }
    let safeEnd = this.text.length;
    const lastOpen = this.text.lastIndexOf("<");
    if (lastOpen >= 0 && !this.text.includes(">", lastOpen) && this.text.length - lastOpen < 80) safeEnd = lastOpen;
    // Each delta is rendered for screens on its own: a CR whose LF is in the next delta, or half of
    // a surrogate pair, would show as an escape. Both wait for the next delta.
    const last = this.text.charCodeAt(safeEnd - 1);
    if (safeEnd > this.emitted && (last === 0x0d || (last >= 0xd800 && last <= 0xdbff))) safeEnd -= 1;
    const visible = this.text.slice(this.emitted, safeEnd);
    this.emitted = safeEnd;
    return visible;
  }
}
