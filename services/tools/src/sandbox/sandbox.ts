import type { CurrentGitScan } from "../files/git-directory-cache.js";

export type SandboxMode = "bwrap" | "unsafe-none" | "unavailable";

export interface SandboxRunOptions {
  /** argv to run inside the sandbox. */
  argv: string[];
  /** Real path of the workspace root (bound read-write). */
  workspace: string;
  /** Real working directory inside the workspace. */
  cwd: string;
  network: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The session the command runs for: sessions take turns for the command slots. */
  session?: string;
  /** Output cap in bytes kept per stream (head and tail). */
  maxOutputBytes?: number;
  /** Added to the sandbox's allow-listed environment (e.g. the git neutralization). */
  env?: Record<string, string>;
}

export interface SandboxRunResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  stdout: string;
  stderr: string;
  truncated: boolean;
  durationMs: number;
  /** Lines in the full output (before truncation). */
  totalLines: number;
  /** Why the sandbox itself ended the command (its spawn helper stopped: SANDBOX_SPAWNER_LOST). */
  interrupted?: string;
}

export interface RunningCommand {
  /** The live output buffer (head and tail kept). */
  output: { text(): string; since(offset: number): { text: string; skippedBytes: number }; totalBytes: number; truncated: boolean };
  /** Resolves once the command and every process it started are gone. */
  finished: Promise<SandboxRunResult>;
  cancel(): void;
}

/** Runs argv under the configured isolation. `run` never throws for a failing command. */
export interface Sandbox {
  mode: SandboxMode;
  /** Why commands are refused (mode "unavailable"), for SANDBOX_UNAVAILABLE. */
  unavailableReason?: string;
  /** The argv that would actually be spawned (bwrap wrapper included). */
  wrap(options: SandboxRunOptions): { file: string; args: string[]; env: Record<string, string> };
  run(options: SandboxRunOptions): Promise<SandboxRunResult>;
  /** Starts without waiting (background processes); `name` labels its cgroup. */
  start(options: SandboxRunOptions, name: string): Promise<RunningCommand>;
  /** The workspace's git directories, one scan reused while a stat check shows nothing it read changed. */
  gitDirectories(workspace: string): Promise<CurrentGitScan>;
  /** Waits for the clean-up of finished commands (their cgroups); call when stopping. */
  close(): Promise<void>;
}
