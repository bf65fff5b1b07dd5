import { afterEach, describe, expect, it, vi } from "vitest";
import { DeltaBatcher, maxDeltaChars } from "./delta-batcher.js";
import { isLoopbackUrl } from "./endpoint-policy.js";
import { InFlight } from "./in-flight.js";
import { defaultThreads } from "./llama-threads.js";
import { buildEnvironment } from "./pull/llama-server-pull.js";
import { splitIntoChunks } from "./scripted-provider.js";

describe("defaultThreads", () => {
  it("uses one thread on two cores or fewer, half the cores above, at most 8", () => {
    expect([1, 2, 3, 4, 8, 32].map(defaultThreads)).toEqual([1, 1, 1, 2, 4, 8]);
  });
});

describe("InFlight", () => {
  it("aborts a running request, and one whose abort arrived first", () => {
    let now = 0;
    const inFlight = new InFlight(1000, () => now);
    const running = inFlight.start("a");
    expect(inFlight.abort("a")).toBe(true);
    expect(running.signal.aborted).toBe(true);
    expect(inFlight.abort("b")).toBe(false);
    expect(inFlight.start("b").signal.aborted).toBe(true);
    inFlight.abort("c");
    now = 2000;
    expect(inFlight.start("c").signal.aborted).toBe(false);
  });
});

describe("DeltaBatcher", () => {
  afterEach(() => vi.useRealTimers());
  it("coalesces chunks within the window and flushes the rest", () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const batcher = new DeltaBatcher((text) => sent.push(text), 25, 10);
    batcher.push("ab");
    batcher.push("cd");
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(25);
    expect(sent).toEqual(["abcd"]);
    batcher.push("0123456789x");
    expect(sent).toEqual(["abcd", "0123456789x"]);
    batcher.push("tail");
    batcher.flush();
    expect(sent).toEqual(["abcd", "0123456789x", "tail"]);
  });
  it("sends one huge chunk as several deltas under the bus's max payload, never splitting a surrogate pair", () => {
    const sent: string[] = [];
    const batcher = new DeltaBatcher((text) => sent.push(text), 25, 512);
    const huge = "a".repeat(maxDeltaChars - 1) + "🙂" + "b".repeat(2 * maxDeltaChars);
    batcher.push(huge);
    expect(sent.length).toBe(4);
    expect(sent.join("")).toBe(huge);
    expect(sent[0]!.length).toBe(maxDeltaChars - 1);
    for (const delta of sent) expect(Buffer.byteLength(delta)).toBeLessThan(256 * 1024);
  });
});

describe("isLoopbackUrl", () => {
  it("accepts loopback hosts only", () => {
    for (const url of ["http://127.0.0.1:11434/v1", "http://localhost:8080", "http://[::1]:1234/v1", "http://127.5.0.1"]) expect(isLoopbackUrl(url), url).toBe(true);
    for (const url of ["https://api.deepseek.com/v1", "http://10.0.0.2/v1", "http://0.0.0.0:11434", "http://localhost.evil.com", "nonsense"]) expect(isLoopbackUrl(url), url).toBe(false);
  });
});

describe("splitIntoChunks", () => {
  it("splits at word boundaries and keeps the text", () => {
    const chunks = splitIntoChunks("one two three four five six seven eight");
    expect(chunks.length).toBe(4);
    expect(chunks.join("")).toBe("one two three four five six seven eight");
    expect(splitIntoChunks("")).toEqual([]);
  });
});

describe("ThinkSplitter", () => {
  it("routes <think> blocks to reasoning, even with tags split across chunks", async () => {
    const { ThinkSplitter } = await import("./think-splitter.js");
    const deltas: string[] = [];
    const splitter = new ThinkSplitter((text) => deltas.push(text));
    for (const chunk of ["<thi", "nk>plan: read", " a</th", "ink>\nAnswer <b>x</b> <", "think"]) splitter.push(chunk);
    splitter.end();
    expect(splitter.reasoning).toBe("plan: read a");
    expect(splitter.text).toBe("\nAnswer <b>x</b> <think");
    expect(deltas.join("")).toBe(splitter.text);
    expect(deltas.join("")).not.toContain("plan");
    expect(ThinkSplitter.split("no tags <here>")).toEqual({ text: "no tags <here>", reasoning: "" });
  });
});

describe("the llama-server source build's environment", () => {
  it("bounds make by the load average and cmake by the core count, builds for portable instructions; a person's own settings win", () => {
    const portable = "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON";
    expect(buildEnvironment({ PATH: "/bin" }, 2, "x64")).toEqual({ PATH: "/bin", MAKEFLAGS: "-l2", CMAKE_BUILD_PARALLEL_LEVEL: "2", CMAKE_ARGS: portable });
    // Never the build machine's own instructions (GGML_NATIVE): a guest CPU may name AMX without enabling it.
    expect(buildEnvironment({}, 2, "arm64").CMAKE_ARGS).toBe("-DGGML_NATIVE=OFF");
    expect(buildEnvironment({ MAKEFLAGS: "-j8", CMAKE_BUILD_PARALLEL_LEVEL: "8", CMAKE_ARGS: "-DGGML_NATIVE=ON" }, 2)).toEqual({
      MAKEFLAGS: "-j8",
      CMAKE_BUILD_PARALLEL_LEVEL: "8",
      CMAKE_ARGS: "-DGGML_NATIVE=ON",
    });
  });
});
