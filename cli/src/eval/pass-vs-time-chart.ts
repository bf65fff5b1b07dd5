/**
 * The report's chart: pass rate of the hidden checks against the median time per task, one point
 * per model/arm, as a vega-lite spec compiled to vega and rendered to SVG headless (no canvas, no
 * browser: the `none` renderer's SVG string).
 */
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { EvalReport } from "./eval-report.js";

export function passVsTimeSpec(report: EvalReport): TopLevelSpec {
  const values = report.variants.map((s) => ({
    variant: s.variant,
    pass_rate: Math.round(s.pass_rate * 1000) / 10,
    median_seconds: Number.isFinite(s.median_wall_ms) ? Math.round(s.median_wall_ms / 100) / 10 : 0,
    attempts: s.attempts,
    false_done: s.false_done,
  }));
  const x = { field: "median_seconds", type: "quantitative" as const, title: "median time per task (s)", scale: { zero: true } };
  const y = { field: "pass_rate", type: "quantitative" as const, title: "hidden checks passed (%)", scale: { domain: [0, 100] } };
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: "aide eval: pass rate against time",
    width: 480,
    height: 320,
    background: "white",
    data: { values },
    layer: [
      {
        mark: { type: "point", filled: true, size: 90 },
        encoding: {
          x,
          y,
          color: { field: "variant", type: "nominal", title: "model / arm" },
          tooltip: [{ field: "variant" }, { field: "pass_rate" }, { field: "median_seconds" }, { field: "attempts" }, { field: "false_done" }],
        },
      },
      { mark: { type: "text", align: "left", dx: 8, dy: -6, fontSize: 11 }, encoding: { x, y, text: { field: "variant" } } },
    ],
  };
}

export async function renderPassVsTimeSvg(report: EvalReport): Promise<string> {
  const view = new vega.View(vega.parse(compile(passVsTimeSpec(report)).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
