import type { Workspace } from "../jail/workspace.js";
import type { RipgrepCommand } from "./ripgrep-jail.js";

export interface SearchQuery {
  /** Real absolute path of the workspace root (ripgrep's working directory). */
  root: string;
  /** The jail the JavaScript search reads through. */
  workspace: Workspace;
  /** How ripgrep is started (in its mount jail, `ripgrep-jail.ts`); plain `rg` when absent. */
  ripgrepCommand?: RipgrepCommand;
  /** Workspace-relative directory or file to search ("." for all). */
  target: string;
  pattern: string;
  literal: boolean;
  caseInsensitive: boolean;
  /** Glob on file paths (`*.ts`, `src/**\/*.py`), optional. */
  include?: string;
  signal?: AbortSignal;
  timeoutMs: number;
}

export interface SearchHit {
  /** Workspace-relative path. */
  path: string;
  matches: number;
}

export type SearchOutcome = { ok: true; hits: SearchHit[]; engine: "ripgrep" | "javascript" } | { ok: false; error: string };

/** Directories never searched: version control and the agent's own state. */
export const excludedDirectories = [".git", ".aide"];
