import { byId, el } from "./dom.js";
import { cachedText, totals, type TurnCost } from "./run-costs.js";
import { shown } from "./screen-text.js";

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/**
 * The costs in sight: the run's totals in the session header line, and (in the costs section) a
 * table per turn and per run of prompt / cached-prompt / completion tokens, model time and tool
 * time, with a uPlot chart of tokens per turn.
 */
export function createCostsView() {
  const section = byId<HTMLDetailsElement>("costs");
  const summary = byId("costs-summary");
  const table = byId<HTMLTableElement>("costs-table");
  const chartBox = byId("costs-chart");
  let chart: uPlot | undefined;
  let width = 0;
  // The chart follows its box: a resize (window, side pane, 360 px phone turned) redraws it at the new width.
  new ResizeObserver(() => {
    if (!chart) return;
    const nextWidth = Math.max(240, Math.min(720, chartBox.clientWidth || 480));
    if (nextWidth === width) return;
    width = nextWidth;
    chart.setSize({ width, height: 180 });
  }).observe(chartBox);
  const row = (cells: string[], className = "") =>
    el(
      "tr",
      { className },
      cells.map((text, index) => el(index === 0 ? "th" : "td", { text, attrs: index === 0 ? { scope: "row" } : {} })),
    );
  const drawChart = (turns: TurnCost[]) => {
    const data = [turns.map((_t, index) => index + 1), turns.map((t) => t.prompt), turns.map((t) => t.completion), turns.map((t) => t.cached ?? null)];
    const nextWidth = Math.max(240, Math.min(720, chartBox.clientWidth || 480));
    if (chart && nextWidth === width) return chart.setData(data);
    chart?.destroy();
    width = nextWidth;
    chart = new uPlot(
      {
        width,
        height: 180,
        title: "Tokens per turn",
        scales: { x: { time: false } },
        axes: [{ label: "turn", incrs: [1, 2, 5, 10, 20, 50, 100] }, { label: "tokens" }],
        series: [
          { label: "turn" },
          { label: "prompt", stroke: "#2456d6", width: 2, points: { show: true } },
          { label: "completion", stroke: "#1b7f3b", width: 2, points: { show: true } },
          { label: "cached prompt", stroke: "#e0a800", width: 2, dash: [4, 4], points: { show: true } },
        ],
      },
      data,
      chartBox,
    );
  };
  return {
    clear() {
      summary.textContent = "no model turns yet";
      table.replaceChildren();
      chart?.destroy();
      chart = undefined;
    },
    render(turns: TurnCost[]) {
      const all = totals(turns);
      summary.textContent = `${all.prompt} prompt (${all.cached === undefined ? "cache not reported" : `${all.cached} cached`}) + ${all.completion} completion tokens · model ${seconds(all.modelMs)} · tools ${seconds(all.toolMs)} · ${turns.length} turns`;
      summary.setAttribute("data-prompt", String(all.prompt));
      summary.setAttribute("data-completion", String(all.completion));
      const head = el("thead", {}, [
        el(
          "tr",
          {},
          ["turn", "prompt", "cached", "completion", "model time", "tool time", "tools"].map((text) => el("th", { text, attrs: { scope: "col" } })),
        ),
      ]);
      const body = el("tbody");
      const runs = [...new Set(turns.map((t) => t.run))];
      for (const run of runs) {
        const ofRun = turns.filter((t) => t.run === run);
        for (const t of ofRun) {
          const line = row([`${t.turn}`, `${t.prompt}`, cachedText(t.cached), `${t.completion}`, seconds(t.modelMs), seconds(t.toolMs), `${t.tools}`], "turn");
          line.setAttribute("data-request", t.request);
          body.append(line);
        }
        const sum = totals(ofRun);
        body.append(row([`run ${shown(run).slice(0, 12)}`, `${sum.prompt}`, cachedText(sum.cached), `${sum.completion}`, seconds(sum.modelMs), seconds(sum.toolMs), `${sum.tools}`], "run-total"));
      }
      table.replaceChildren(head, body);
      if (turns.length > 0 && section.open) drawChart(turns);
      section.ontoggle = () => section.open && turns.length > 0 && drawChart(turns);
    },
  };
}
