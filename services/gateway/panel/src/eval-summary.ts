import { api } from "./api.js";
import { byId, el } from "./dom.js";
import { shown } from "./screen-text.js";

interface LatestEval {
  run: string;
  written_at: string;
  report: Record<string, unknown>;
  files: string[];
}

/**
 * One line per model/arm of the report (`variants`: `[{ variant, model, arm?, attempts, passed,
 * false_done }]`, what `aide eval report` writes in report.json); the page and chart say the rest.
 */
function scoreLines(report: Record<string, unknown>): HTMLElement[] {
  const variants = (Array.isArray(report.variants) ? report.variants : []) as Array<Record<string, unknown>>;
  return variants
    .filter((v) => typeof v.model === "string" && typeof v.attempts === "number" && typeof v.passed === "number")
    .map((v) => {
      const label = typeof v.arm === "string" && v.arm !== "" ? `${v.model} · ${v.arm}` : String(v.model);
      const falseDone = typeof v.false_done === "number" ? ` · ${v.false_done} false done` : "";
      return el("li", { text: `${shown(label)}: ${v.passed}/${v.attempts} passed${falseDone}` });
    });
}

/**
 * The latest `aide eval` report (`GET /api/eval/latest`), asked for when the person opens the
 * section (no request, and no 404 while there is no report, otherwise): its run, when it was
 * written, the pass counts per model, a link to its HTML page (opened in its own tab; the gateway
 * serves it sandboxed) and its chart as an image from the gateway; or what to run to get one.
 */
export function installEvalSummary(): void {
  const section = byId<HTMLDetailsElement>("eval");
  const body = byId("eval-body");
  section.addEventListener("toggle", async () => {
    if (!section.open) return;
    body.replaceChildren(el("p", { className: "meta", text: "loading…" }));
    let latest: LatestEval;
    try {
      latest = await api<LatestEval>("GET", "/api/eval/latest");
    } catch (error) {
      body.replaceChildren(el("p", { className: "meta", text: shown((error as Error).message) }));
      return;
    }
    const file = (name: string) => `/api/eval/latest/${encodeURIComponent(name)}`;
    body.replaceChildren(
      el("p", { className: "meta", text: `${shown(latest.run)} · ${latest.written_at.slice(0, 16).replace("T", " ")}` }),
      el("ul", { className: "eval-scores" }, scoreLines(latest.report)),
      ...(latest.files.includes("pass-vs-time.svg") ? [el("img", { className: "eval-chart", attrs: { src: file("pass-vs-time.svg"), alt: "Pass rate against time per model" } })] : []),
      ...(latest.files.includes("report.html")
        ? [el("a", { className: "eval-link", text: "Open the report", attrs: { href: file("report.html"), target: "_blank", rel: "noopener noreferrer" } })]
        : []),
    );
  });
}
