import type { EvidenceKind } from "./evidence-kind.js";
import { classifyTask, reportsDefect } from "./task-intent.js";

const EXECUTION =
  /\b(run|runs|execute|test|tests|testing|analy[sz]e|analysis|benchmark|measure|profile|compute|calculate|check|verify|debug|reproduce|compile|lint|evaluate|inspect|list|show|find|count|search|look (at|for|into)|review|audit)\b/i;
const SOURCE =
  /\b(write|create|make|build|generate|implement|develop|code)\b[^.?!\n]{0,60}\b(script|program|tool|cli|app|application|source code|code|module|function)\b|\b(python|javascript|typescript|node|bash|shell|go|rust|ruby)\s+(script|program)\b/i;
/** A report asked for; "report.py", "reports/x" or "report_test" name a file, not a request. */
const REPORT = /(?<![\w./-])(report|write-?up|summary file|results file|findings)(?![\w/-]|\.\w)|\b(document|summari[sz]e|write down)\b[^.?!\n]{0,40}\b(results|findings|measurements)\b/i;
/** Wording that asks for numbers by itself. */
const MEASUREMENTS = /\b(benchmark|benchmarks|faster|slower|performance|timings?|measure|measurements?|throughput|latency|speed ?up)\b/i;
/**
 * A comparison asks for numbers only when what is compared is a cost ("compare the speed of …");
 * "compare arguments with JSON.stringify" describes code.
 */
const COMPARISON = /\b(compare|comparison|comparing|versus|vs\.?)\b/i;
const COST = /\b(speed|fast|slow|time|times|timing|runtime|run time|memory|cpu|throughput|latency|size|cost|overhead|performance)\b/i;

/** A question about this workspace (a file, a path, an identifier, "this repo") must be answered from it. */
const ABOUT_WORKSPACE =
  /\b(this|the|our|my) (repo|repository|project|codebase|code|file|files|function|module|package|test|tests|workspace|config)\b|[\w-]+\.(ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|kt|rb|php|cs|swift|json|ya?ml|toml|ini|cfg|md|txt|csv|html?|css|scss|xml|sql|lock|sh|c|cc|cpp|h|hpp)\b|`[^`]+`|\b[a-z]+[A-Z]\w*\b|\b\w+_\w+\b|\w\/\w/;
const ABOUT_WORKSPACE_OTHER_LANGUAGES =
  /(?<![\p{L}])(dies\p{L}*|diese[rsmn]?|unser\p{L}*|der|die|das|den|dem|ce|cet|cette|ces|notre|nos|le|la|les|este|esta|estos|estas|nuestro|nuestra|el|los|las) (repo|projekt|projet|proyecto|code|código|datei|dateien|fichier|fichiers|archivo|archivos|funktion|fonction|función|tests?|konfiguration|configuration|configuración|config|pruebas?|prueba|programm|programme|programa)(?![\p{L}])/iu;

/** Wording that asks for something to be run, not only looked at ("go run . prints …", "make the failing test pass"). */
const RUN = /\b(run|runs|running|execute|executes|test|tests|testing|compile|compiles|reproduce)\b/i;

/**
 * A change task whose wording asks for something to be run: once the run changed a file, only an
 * execution after its last change meets the task's execution requirement (`EvidenceLedger.evaluate`'s
 * `runAfterChange`); a read shows that a file holds what was written, not that it runs.
 */
export function asksToRun(task: string): boolean {
  return classifyTask(task) !== "question" && RUN.test(task);
}

/**
 * A plain question (no change asked for): its completion is the answer, so an empty one answers
 * nothing (`EvidenceLedger.evaluate`'s `answerRequired`).
 */
export function asksQuestion(task: string): boolean {
  return classifyTask(task) === "question";
}

/**
 * A plain question about this workspace (a file, an identifier, "this project", a defect): its
 * answer must come from the workspace, so the answer audit checks its names and numbers against
 * what the run read or ran. A general question ("what does HTTP 418 mean?") is answered from
 * knowledge and is not audited.
 */
export function asksAboutWorkspace(task: string): boolean {
  return classifyTask(task) === "question" && deriveEvidenceRequirements(task).includes("execution");
}

/**
 * A question about a failure ("why does the test in a.test.js fail?", "warum schlägt der Test
 * fehl?"): a plain question (no change asked for) whose wording reports a defect. For it, a run
 * that shows the failure is the evidence (`EvidenceLedger.evaluate`'s `failureIsAnswer`).
 */
export function asksAboutFailure(task: string): boolean {
  return classifyTask(task) === "question" && reportsDefect(task);
}

/**
 * Derives the evidence a request needs from its wording (heuristic, regular-expression based, so a
 * reader can inspect it). The default is strict (`classifyTask`): every task that is not a plain question,
 * a greeting or a plain request to run something needs a change and a later verification (the
 * artifact row). A plain question is answered from inspections of the workspace when it is about
 * the workspace, from nothing when it is not. Order of the result is fixed: artifact, execution,
 * source_file, report, measurements.
 */
export function deriveEvidenceRequirements(task: string): EvidenceKind[] {
  const intent = classifyTask(task);
  if (intent === "conversation") return [];
  if (intent === "question") {
    const aboutWorkspace = ABOUT_WORKSPACE.test(task) || ABOUT_WORKSPACE_OTHER_LANGUAGES.test(task) || reportsDefect(task);
    return aboutWorkspace ? ["execution"] : [];
  }
  const kinds = new Set<EvidenceKind>();
  const source = SOURCE.test(task);
  const report = REPORT.test(task);
  const measurements = MEASUREMENTS.test(task) || (COMPARISON.test(task) && COST.test(task));
  if (intent === "change" || source || report) kinds.add("artifact");
  if (EXECUTION.test(task) || measurements || intent === "execution") kinds.add("execution");
  if (source) kinds.add("source_file");
  if (report) kinds.add("report");
  if (measurements && (report || /\b(benchmark|compare|comparison|measure)\w*/i.test(task))) kinds.add("measurements");
  const order: EvidenceKind[] = ["artifact", "execution", "source_file", "report", "measurements"];
  return order.filter((kind) => kinds.has(kind));
}
