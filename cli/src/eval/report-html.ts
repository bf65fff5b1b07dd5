/** The markdown report as a standalone HTML page with the chart inline (no script, no remote resource). */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function reportHtml(markdown: string, chartSvg?: string): string {
  const body: string[] = [];
  let table: string[][] | undefined;
  const flush = () => {
    if (!table) return;
    const [head, , ...rows] = table;
    body.push(
      `<table><thead><tr>${head.map((cell) => `<th>${escapeHtml(cell)}</th>`).join("")}</tr></thead><tbody>${rows.map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join("")}</tr>`).join("")}</tbody></table>`,
    );
    table = undefined;
  };
  for (const line of markdown.split("\n")) {
    if (line.startsWith("|")) {
      (table ??= []).push(
        line
          .slice(1, -1)
          .split("|")
          .map((cell) => cell.trim()),
      );
      continue;
    }
    flush();
    if (line.startsWith("![")) {
      if (chartSvg) body.push(`<figure>${chartSvg}</figure>`);
    } else if (line.startsWith("## ")) body.push(`<h2>${escapeHtml(line.slice(3))}</h2>`);
    else if (line.startsWith("# ")) body.push(`<h1>${escapeHtml(line.slice(2))}</h1>`);
    else if (line.startsWith("- ")) body.push(`<p>${escapeHtml(line.slice(2))}</p>`);
    else if (line.trim() !== "") body.push(`<p>${escapeHtml(line)}</p>`);
  }
  flush();
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>aide eval report</title><style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}figure{margin:1em 0}</style></head><body>${body.join("\n")}</body></html>\n`;
}
