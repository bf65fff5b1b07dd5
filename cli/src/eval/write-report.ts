/**
 * Writes a report's four files into a folder: `report.md`, `report.html` (the chart inline),
 * `report.json` (the tables and comparisons, machine-readable) and `pass-vs-time.svg`. The web
 * panel serves the newest run's files by exactly these names.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AttemptRecord } from "./attempt-record.js";
import { chooseEditFormats, editFormatMarkdown } from "./edit-format-choice.js";
import { buildReport, type EvalReport } from "./eval-report.js";
import { renderPassVsTimeSvg } from "./pass-vs-time-chart.js";
import { reportHtml } from "./report-html.js";
import { reportMarkdown } from "./report-markdown.js";

export const reportFiles = { markdown: "report.md", html: "report.html", json: "report.json", chart: "pass-vs-time.svg" } as const;

export async function writeReport(dir: string, records: readonly AttemptRecord[]): Promise<{ report: EvalReport; markdown: string; files: string[] }> {
  const report = buildReport(records);
  const svg = await renderPassVsTimeSvg(report);
  // The edit format per model the results support (and the command that applies it), when the arms tried formats.
  const editFormats = chooseEditFormats(records).filter((choice) => choice.best !== null && choice.best.edit_format !== "routed-v1");
  const markdown = `${reportMarkdown(report, reportFiles.chart).trimEnd()}\n${editFormatMarkdown(editFormats).join("\n")}\n`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, reportFiles.chart), svg);
  writeFileSync(join(dir, reportFiles.markdown), markdown);
  writeFileSync(join(dir, reportFiles.html), reportHtml(markdown, svg));
  writeFileSync(join(dir, reportFiles.json), `${JSON.stringify({ ...report, chart: reportFiles.chart, ...(editFormats.length > 0 ? { edit_formats: editFormats } : {}) }, null, 2)}\n`);
  return { report, markdown, files: Object.values(reportFiles).map((name) => join(dir, name)) };
}
