import { countChanges, pathOf, splitFiles } from "./diff-files.js";
import { el } from "./dom.js";
import { escapesIn } from "./screen-text.js";

export type DiffLayout = "line-by-line" | "side-by-side";

/** Files with more changed lines than this start collapsed (their summary still says what changed). */
export const collapseAboveLines = 200;
const layoutKey = "aide.diff-layout";

export function preferredLayout(): DiffLayout {
  return localStorage.getItem(layoutKey) === "side-by-side" ? "side-by-side" : "line-by-line";
}

export interface DiffFlags {
  /** Paths the policy protects (flagged on their file). */
  protectedPaths?: string[];
}

/** A diff without a hunk header is shown as plain lines (diff2html draws only hunks). */
function plainDiff(fileDiff: string): HTMLElement {
  const lines = fileDiff.split("\n").map((line) => {
    const kind = line.startsWith("+++") || line.startsWith("---") ? "file" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "ctx";
    return el("div", { className: kind, text: line });
  });
  return el("pre", { className: "diff plain" }, lines);
}

/**
 * Marks what the screen rendering replaced, after the library drew: each code line showing a token
 * such as ⟨U+202E⟩ or ⟨ESC⟩ gets the `escape-line` class (a loud margin), and a token inside one
 * text node is wrapped in `<mark class="escape-token">`. Only text nodes are split: nothing is parsed.
 */
function flagEscapes(root: HTMLElement): number {
  let lines = 0;
  for (const line of root.querySelectorAll<HTMLElement>(".d2h-code-line-ctn")) {
    if (escapesIn(line.textContent ?? "") === 0) continue;
    lines++;
    line.closest("tr")?.classList.add("escape-line");
    line.classList.add("escape-line");
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    const texts: Text[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
    for (const text of texts) {
      const value = text.data;
      const pattern = /⟨[^⟩\n]{1,24}⟩/g;
      if (!pattern.test(value)) continue;
      pattern.lastIndex = 0;
      const parts: Node[] = [];
      let last = 0;
      for (let match = pattern.exec(value); match; match = pattern.exec(value)) {
        if (match.index > last) parts.push(document.createTextNode(value.slice(last, match.index)));
        parts.push(el("mark", { className: "escape-token", text: match[0] }));
        last = match.index + match[0].length;
      }
      if (last < value.length) parts.push(document.createTextNode(value.slice(last)));
      text.replaceWith(...parts);
    }
  }
  return lines;
}

/**
 * Side by side, long lines wrap (nothing clipped); the two sides are separate tables, so each row
 * pair is given the height of the taller one, again whenever the view's width changes.
 */
function alignSides(target: HTMLElement): void {
  const [left, right] = [...target.querySelectorAll<HTMLElement>(".d2h-file-side-diff")];
  if (!left || !right) return;
  const align = () => {
    const a = [...left.querySelectorAll<HTMLTableRowElement>("tr")];
    const b = [...right.querySelectorAll<HTMLTableRowElement>("tr")];
    for (const row of [...a, ...b]) row.style.height = "";
    const heights = a.map((row, index) => Math.max(row.getBoundingClientRect().height, b[index]?.getBoundingClientRect().height ?? 0));
    a.forEach((row, index) => {
      row.style.height = `${heights[index]}px`;
      if (b[index]) b[index].style.height = `${heights[index]}px`;
    });
  };
  align();
  let width = target.clientWidth;
  new ResizeObserver(() => {
    if (target.clientWidth === width) return;
    width = target.clientWidth;
    align();
  }).observe(target);
}

/** Draws one file with diff2html (line numbers, highlighting by file type, word-level changes). */
function drawFile(target: HTMLElement, fileDiff: string, layout: DiffLayout): void {
  target.replaceChildren();
  if (!/^@@ /m.test(fileDiff)) {
    target.append(plainDiff(fileDiff));
    return;
  }
  new Diff2HtmlUI(target, fileDiff.endsWith("\n") ? fileDiff : fileDiff + "\n", {
    outputFormat: layout,
    drawFileList: false,
    matching: "words",
    diffStyle: "word",
    highlight: true,
    fileListToggle: false,
    fileContentToggle: false,
    stickyFileHeaders: false,
    synchronisedScroll: true,
    renderNothingWhenEmpty: false,
    colorScheme: "light",
  }).draw();
  flagEscapes(target);
  if (layout === "side-by-side") alignSides(target);
}

/**
 * The one diff view of the panel (approvals, tool cards, checkpoint compares): a screen-rendered
 * unified diff (the caller passes text already through `shown`), one collapsible section per file,
 * a unified / side-by-side toggle (remembered), and loud flags on protected paths and on lines that
 * hid characters.
 */
export function diffView(renderedDiff: string, flags: DiffFlags = {}): HTMLElement {
  let layout = preferredLayout();
  const files = splitFiles(renderedDiff);
  const toggle = el("button", { className: "layout-toggle", attrs: { type: "button", "data-action": "diff-layout" } });
  const root = el("div", { className: "diff-view", attrs: { "data-layout": layout } }, [el("div", { className: "diff-toolbar" }, [toggle])]);
  const bodies: Array<{ target: HTMLElement; diff: string; details: HTMLDetailsElement }> = [];
  for (const fileDiff of files) {
    const path = pathOf(fileDiff);
    const { added, removed } = countChanges(fileDiff);
    const isProtected = (flags.protectedPaths ?? []).some((p) => p === path || path.startsWith(p.replace(/\/?$/, "/")));
    const escapes = escapesIn(fileDiff);
    const summary = el("summary", {}, [el("span", { className: "file-path", text: path }), el("span", { className: "file-counts", text: ` +${added} −${removed}` })]);
    if (isProtected) summary.append(el("span", { className: "flag protected", text: "⚠ PROTECTED PATH" }));
    if (escapes > 0) summary.append(el("span", { className: "flag escapes", text: `⚠ ${escapes} hidden/control characters shown as ⟨…⟩` }));
    const target = el("div", { className: "diff-file-body" });
    const large = added + removed > collapseAboveLines;
    const details = el("details", { className: `diff-file${isProtected ? " protected" : ""}${escapes > 0 ? " has-escapes" : ""}`, attrs: { "data-path": path } }, [summary, target]);
    if (large) {
      details.classList.add("large");
      summary.append(el("span", { className: "flag large", text: ` large: ${added + removed} changed lines, collapsed` }));
    } else details.open = true;
    bodies.push({ target, diff: fileDiff, details });
    root.append(details);
  }
  const draw = (entry: (typeof bodies)[number]) => {
    if (entry.details.open) drawFile(entry.target, entry.diff, layout);
    entry.target.setAttribute("data-drawn", entry.details.open ? layout : "");
  };
  for (const entry of bodies) {
    entry.details.addEventListener("toggle", () => {
      if (entry.details.open && entry.target.getAttribute("data-drawn") !== layout) draw(entry);
    });
  }
  const render = () => {
    toggle.textContent = layout === "side-by-side" ? "Unified view" : "Side-by-side view";
    toggle.setAttribute("aria-pressed", String(layout === "side-by-side"));
    root.setAttribute("data-layout", layout);
    for (const entry of bodies) draw(entry);
  };
  toggle.addEventListener("click", () => {
    layout = layout === "side-by-side" ? "line-by-line" : "side-by-side";
    localStorage.setItem(layoutKey, layout);
    render();
  });
  render();
  return root;
}
