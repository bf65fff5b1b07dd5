/**
 * bench:strategies — what each strategy of issue 28 adds to the prompt on the compact tier,
 * counted with a real instruction-tuned model's tokenizer (SmolLM2-135M-Instruct through
 * node-llama-cpp; AIDE_TEST_MODEL picks another GGUF). The few_shot examples (fix-and-test task),
 * the test output block of prefix_failing_output and the auto_test result for the demo project
 * (examples/sample-project: its real `npm test` output, run here unsandboxed, before and after the
 * fix), an auto_lint notice for one new problem, and the loop breaker's instruction against the
 * error it replaces. The code map's cost is bench:codemap-prefix's.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { detectTestCommand, failingOutputBlock, failingOutputBudgetChars, fewShotExamples, LoopBreaker, selectTools, wrapToolResult } from "@aide/orchestrator";
import { firstTurn, promptScenarios, realCatalog } from "./lib/prompt-scenarios.js";
import { repoRoot, writeBenchResult } from "./lib/results.js";

const modelPath = process.env.AIDE_TEST_MODEL ?? join(process.env.AIDE_MODEL_CACHE ?? join(homedir(), ".cache", "aide", "models"), "SmolLM2-135M-Instruct.Q4_1.gguf");
/** A 2,048-token window at about 3.5 characters per token, three quarters for the prompt: the compact tier's smallest budget. */
const compactBudgetChars = Math.floor(2048 * 3.5 * 0.75);

function runTests(dir: string, command: string): { failed: boolean; output: string } {
  const [program, ...args] = command.split(" ");
  try {
    return { failed: false, output: execFileSync(program, args, { cwd: dir, encoding: "utf8", stdio: "pipe" }) };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    return { failed: true, output: `${failure.stdout ?? ""}${failure.stderr ?? ""}` };
  }
}

async function main(): Promise<void> {
  if (!existsSync(modelPath)) {
    process.stderr.write(`bench:strategies SKIPPED: no GGUF at ${modelPath}\n`);
    return;
  }
  const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath });
  const tokens = (text: string) => model.tokenize(text).length;
  const catalog = realCatalog();
  const scenario = promptScenarios.find((entry) => entry.name === "fix-and-test")!;
  const plain = firstTurn(scenario, "compact", catalog);
  const shots = firstTurn(scenario, "compact", catalog, true);
  const examples = fewShotExamples(selectTools(scenario.task, catalog, scenario.mode, "compact"));

  const dir = mkdtempSync(join(tmpdir(), "aide-bench-strategies-"));
  cpSync(join(repoRoot, "examples", "sample-project"), dir, { recursive: true });
  const entries = execFileSync("ls", ["-p", dir], { encoding: "utf8" }).split("\n").filter(Boolean);
  const test = detectTestCommand({ entries, files: { "package.json": readFileSync(join(dir, "package.json"), "utf8") } })!;
  const before = runTests(dir, test.command);
  const limit = failingOutputBudgetChars(compactBudgetChars, "compact");
  const block = failingOutputBlock(test.command, test.because, before.failed, before.output, limit);
  // The demo's fix (the README's task), then the test run auto_test would feed back.
  const source = join(dir, "src", "cart.js");
  writeFileSync(source, readFileSync(source, "utf8").replace("total += item.price;", "total += item.price * item.quantity;"));
  const after = runTests(dir, test.command);
  rmSync(dir, { recursive: true, force: true });
  const autoTestResult = wrapToolResult({
    call_id: "auto-test-1",
    tool: "run_command",
    output: `${after.output}\n[notices: auto_test: aide ran the project's test command (${test.command}, from ${test.because}) after your edit]`,
    is_error: after.failed,
  });
  const lintNotice = "Note: auto_lint: your replace_in_file introduced 1 new problem (typescript); fix it next:\n  src/cart.ts:3:9 TS2322 Type 'string' is not assignable to type 'number'.";
  const breaker = new LoopBreaker();
  const read = { name: "read_file", arguments: { path: "src/avg.js" } };
  const error = { is_error: true, output: "No file at src/avg.js.", changed_paths: [] };
  breaker.observe(read, error);
  const redirect = breaker.observe(read, error);
  const result = {
    tokenizer: modelPath.split("/").pop(),
    compact_budget_chars: compactBudgetChars,
    few_shot: {
      scenario: scenario.name,
      tools: plain.tools.length,
      system_tokens: tokens(plain.system),
      with_few_shot: tokens(shots.system),
      examples_tokens: tokens(examples),
      examples_chars: examples.length,
    },
    prefix_failing_output_8k: (() => {
      const wide = failingOutputBlock(test.command, test.because, before.failed, before.output, failingOutputBudgetChars(Math.floor(8192 * 3.5 * 0.75), "compact"));
      return { window_tokens: 8192, block_chars: wide.length, block_tokens: tokens(wide), cut: wide.includes("cut to fit the prompt budget") };
    })(),
    prefix_failing_output_block: block,
    prefix_failing_output: {
      command: test.command,
      because: test.because,
      failed: before.failed,
      output_chars: before.output.length,
      block_limit_chars: limit,
      block_chars: block.length,
      block_tokens: tokens(block),
      cut: block.includes("cut to fit the prompt budget"),
    },
    auto_test: { failed_after_fix: after.failed, result_chars: autoTestResult.length, result_tokens: tokens(autoTestResult) },
    auto_lint: { notice_tokens: tokens(lintNotice) },
    loop_breaker: {
      error_tokens: tokens(wrapToolResult({ call_id: "c1", tool: "read_file", output: error.output, is_error: true })),
      instruction_tokens: tokens(wrapToolResult({ call_id: "c1", tool: "read_file", output: redirect.action === "redirect" ? redirect.message : "", is_error: true })),
    },
  };
  await model.dispose();
  await llama.dispose();
  const path = writeBenchResult("strategies", result);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n${path}\n`);
}

await main();
