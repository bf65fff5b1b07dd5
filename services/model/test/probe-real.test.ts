import { afterAll, describe, expect, it } from "vitest";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ModelProfileSchema } from "@aide/contracts";
import { freePort } from "@aide/runtime";
import { ggufFacts } from "../src/pull/gguf-header.js";
import { llamaServerBinary, missingRealModel, realModelPath } from "../../../tests/helpers/real-models.js";
import { repoRoot } from "../../../tests/helpers/service-process.js";
import { waitForPort } from "../../../tests/helpers/wait-for-port.js";

const smol = realModelPath("smollm2-135m");
const gemma = realModelPath("gemma3-270m");
const server = llamaServerBinary();
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function aide(home: string, args: string[]): string {
  return execFileSync(process.execPath, [join(repoRoot, "cli", "dist", "main.js"), ...args], {
    env: { ...process.env, AIDE_HOME: home, AIDE_MODEL_DISCOVERY: "off", AIDE_MODEL_THREADS: "1", AIDE_LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
}

describe.skipIf(!smol)(smol ? "aide models probe on the real SmolLM2-135M-Instruct GGUF (in-process)" : `probe on SmolLM2 — SKIPPED: ${missingRealModel("smollm2-135m")}`, () => {
  it("reports every field with sane numbers: window, speeds, KV reuse at turn 10, both trial arms, ChatML with a system role, a clean stop", () => {
    const home = mkdtempSync(join(tmpdir(), "aide-probe-real-"));
    homes.push(home);
    aide(home, ["models", "add", "smol", "--file", smol!, "--context", "4096"]);
    const profile = ModelProfileSchema.parse(JSON.parse(aide(home, ["models", "probe", "smol", "--json", "--refresh", "--trials", "2"])));
    expect(profile.context).toMatchObject({ trained: 8192, loaded: 4096, window: 4096 });
    expect(profile.prompt_tier).toBe("compact");
    expect(profile.speed.prefill_tokens_per_s).toBeGreaterThan(0);
    expect(profile.speed.decode_tokens_per_s).toBeGreaterThan(0);
    expect(profile.kv_reuse?.last_turn).toMatchObject({ turn: 10, reused: true });
    expect(profile.kv_reuse!.last_turn!.evaluated).toBeLessThan(profile.kv_reuse!.last_turn!.prompt / 2);
    expect(profile.tool_trials.with_grammar?.trials).toBe(2);
    expect(profile.tool_trials.without_grammar.trials).toBe(2);
    expect(profile.template).toEqual({ name: "ChatML", system_role: true });
    expect(profile.stop?.leaked_marker).toBeUndefined();
    expect(["stop", "length"]).toContain(profile.stop?.finish_reason);
  }, 600_000);
});

describe.skipIf(!gemma)(gemma ? "the Gemma 3 270M GGUF from PyPI: what it is and how its prompt is rendered" : `Gemma template — SKIPPED: ${missingRealModel("gemma3-270m")}`, () => {
  it("is the base model with no chat template of its own, and node-llama-cpp's Gemma wrapper keeps the system text in the first user turn", async () => {
    const facts = await ggufFacts(gemma!);
    expect(facts).toMatchObject({ architecture: "gemma3", name: "Gemma 3 270m", contextLength: 32768 });
    expect(facts!.finetune).toBeUndefined();
    expect(facts!.chatTemplate).toBeUndefined();
    const { getLlama, resolveChatWrapper } = await import("node-llama-cpp");
    const model = await (await getLlama({ gpu: false, build: "never" })).loadModel({ modelPath: gemma! });
    try {
      const wrapper = resolveChatWrapper(model);
      expect(wrapper.wrapperName).toBe("Gemma");
      const text = wrapper
        .generateContextState({
          chatHistory: [
            { type: "system", text: "RULES-17" },
            { type: "user", text: "hi" },
            { type: "model", response: [] },
          ],
        })
        .contextText.toString();
      expect(text).toMatch(/<start_of_turn>user\nRULES-17[\s\S]*hi<end_of_turn>\n<start_of_turn>model\n$/);
    } finally {
      await model.dispose();
    }
  }, 120_000);

  it.skipIf(!server)(
    server
      ? "through llama-server with services/model/templates/gemma-turns.jinja the system text opens the first user turn"
      : "llama-server template — SKIPPED: no llama-server (bash scripts/install.sh --with-models)",
    async () => {
      const port = await freePort();
      const child: ChildProcess = spawn(
        server!,
        [
          "-m",
          gemma!,
          "--host",
          "127.0.0.1",
          "--port",
          String(port),
          "-t",
          "1",
          "-c",
          "2048",
          "--no-webui",
          "--chat-template-file",
          join(repoRoot, "services", "model", "templates", "gemma-turns.jinja"),
        ],
        { stdio: "ignore" },
      );
      try {
        await waitForPort(port);
        let prompt = "";
        for (;;) {
          const res = await fetch(`http://127.0.0.1:${port}/apply-template`, {
            method: "POST",
            body: JSON.stringify({
              messages: [
                { role: "system", content: "RULES-17" },
                { role: "user", content: "hi" },
                { role: "assistant", content: "yo" },
                { role: "user", content: "again" },
              ],
            }),
          });
          if (res.status === 503) {
            // still loading the model
            await new Promise((resolve) => setTimeout(resolve, 100));
            continue;
          }
          prompt = ((await res.json()) as { prompt: string }).prompt;
          break;
        }
        expect(prompt).toBe("<start_of_turn>user\nRULES-17\n\nhi<end_of_turn>\n<start_of_turn>model\nyo<end_of_turn>\n<start_of_turn>user\nagain<end_of_turn>\n<start_of_turn>model\n");
      } finally {
        child.kill("SIGTERM");
      }
    },
    120_000,
  );
});
