import { effectiveCommand } from "./command-words.js";
import { classifySimpleCommand, devTcpFinding, heredocScript, DOWNLOADERS, nestedScript, isStdinExecutor, type Finding, type NetworkLevel } from "./network-rules.js";
import { parseShell, type Pipeline } from "./shell-words.js";

export type NetworkClassification = { level: NetworkLevel; reason?: string; tokens: string[] };

export type ClassifyNetworkOptions = {
  /** Binaries present in the workspace (`node_modules/.bin`); `npx <bin>` of these needs no network. */
  installedBins?: Iterable<string>;
};

/** Credentials and identity files: sending one anywhere is exfiltration, not a network use. */
const SECRET_PATH =
  /(^|[/~@=\s])\.ssh\/|id_(rsa|dsa|ecdsa|ed25519)\b|\.aws\/credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials|\.docker\/config\.json|\/etc\/(passwd|shadow)\b|\.aide\/credentials|(^|[/@=\s])\.env(\.\w+)?$|\.kube\/config|\.gnupg\//;

const ENVIRONMENT_DUMPERS = new Set(["env", "printenv", "set", "export", "declare"]);

const MAX_DEPTH = 4;

const RANK: Record<NetworkLevel, number> = { none: 0, consent_required: 1, forbidden: 2 };

type Stage = { name: string; args: string[]; nested: string[]; heredocs: string[] };

function stagesOf(pipeline: Pipeline): Stage[] {
  const stages: Stage[] = [];
  for (const command of pipeline) {
    const effective = effectiveCommand(command.words);
    stages.push({ name: effective?.name ?? "", args: effective?.args ?? [], nested: command.nested, heredocs: command.heredocs });
  }
  return stages;
}

function runsStdin(stage: Stage): boolean {
  if (!isStdinExecutor(stage.name)) return false;
  const positional = stage.args.find((arg) => !arg.startsWith("-") || arg === "-");
  return positional === undefined || positional === "-" || stage.args.includes("-s");
}

function fetchesRemote(script: string, depth: number, installed: ReadonlySet<string>): boolean {
  return analyze(script, depth + 1, installed).some((finding) => DOWNLOADERS.has(finding.token));
}

/** Patterns that are never acceptable, whatever a person consents to. */
function pipelineDenials(stages: Stage[], findings: Finding[][], depth: number, installed: ReadonlySet<string>): Finding[] {
  const denials: Finding[] = [];
  stages.forEach((stage, index) => {
    const earlier = stages.slice(0, index);
    if (index > 0 && runsStdin(stage) && earlier.some((previous) => DOWNLOADERS.has(previous.name))) {
      denials.push({ level: "forbidden", token: `| ${stage.name}`, reason: "piping a download into a shell or interpreter runs unreviewed remote code" });
    }
    const executes = isStdinExecutor(stage.name) || stage.name === "eval";
    if (executes && stage.nested.some((inner) => fetchesRemote(inner, depth, installed))) {
      denials.push({ level: "forbidden", token: `${stage.name} $(download)`, reason: "executing downloaded content runs unreviewed remote code" });
    }
    const usesNetwork = findings[index].length > 0;
    if (usesNetwork && stage.args.some((arg) => SECRET_PATH.test(arg))) {
      denials.push({ level: "forbidden", token: "secret upload", reason: "sending a credential file over the network is exfiltration" });
    }
    if (usesNetwork && earlier.some((previous) => ENVIRONMENT_DUMPERS.has(previous.name) || previous.args.some((arg) => SECRET_PATH.test(arg)))) {
      denials.push({ level: "forbidden", token: "secret pipe", reason: "piping secrets or the environment into a network command is exfiltration" });
    }
  });
  return denials;
}

function analyze(command: string, depth: number, installed: ReadonlySet<string>): Finding[] {
  if (depth > MAX_DEPTH) {
    return [{ level: "consent_required", token: "nested shell", reason: "too deeply nested to inspect" }];
  }
  const findings: Finding[] = [];
  const devTcp = devTcpFinding(command);
  if (devTcp !== undefined) findings.push(devTcp);
  for (const pipeline of parseShell(command).pipelines) {
    const stages = stagesOf(pipeline);
    const perStage = stages.map((stage) => (stage.name === "" ? [] : classifySimpleCommand(stage.name, stage.args, installed)));
    perStage.forEach((stageFindings) => findings.push(...stageFindings));
    findings.push(...pipelineDenials(stages, perStage, depth, installed));
    for (const stage of stages) {
      const script = nestedScript(stage.name, stage.args);
      if (script !== undefined) findings.push(...analyze(script, depth + 1, installed));
      for (const inner of stage.nested) findings.push(...analyze(inner, depth + 1, installed));
      for (const body of stage.heredocs) {
        const script = heredocScript(stage.name, body);
        if (script === undefined) continue;
        findings.push(...("shell" in script ? analyze(script.shell, depth + 1, installed) : script.findings));
      }
    }
  }
  return findings;
}

/**
 * Decides whether a shell command would use the network (it then needs a person's consent). `consent_required`: runs only
 * with a person's consent naming the network; `forbidden`: never runs (remote code piped into a shell,
 * reverse shells, credential exfiltration). Pure and conservative: when unsure it asks.
 */
export function classifyNetwork(command: string, options: ClassifyNetworkOptions = {}): NetworkClassification {
  const installed = new Set(options.installedBins ?? []);
  const findings = analyze(command, 0, installed);
  if (findings.length === 0) return { level: "none", tokens: [] };
  const top = findings.reduce((best, finding) => (RANK[finding.level] > RANK[best.level] ? finding : best));
  const tokens = [...new Set(findings.map((finding) => finding.token))];
  return { level: top.level, reason: top.reason, tokens };
}
