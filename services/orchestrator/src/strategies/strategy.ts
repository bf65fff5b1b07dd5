import type { ModelChatRequest, SettingName, ToolDescriptor } from "@aide/contracts";
import type { ModelFit } from "../context/model-fit.js";
import type { SystemPromptInput } from "../context/system-prompt-input.js";
import type { RunContext } from "../run/run-context.js";
import type { BatchCall, CallOutcome } from "../session/session-record.js";

/** The evidence gate's options for a run (what the completion check and the ledger's own questions pass). */
export interface VerdictOptions {
  failureIsAnswer: boolean;
  runAfterChange: boolean;
  codeNeedsRun: boolean;
  answerRequired: boolean;
}

/**
 * One model request's grammar, as the active strategies shape it: each grammar hook runs in the
 * registry's order and may read what an earlier one set (path_grammar and act_after_reads read
 * follow_imports' files; line_edits reads search_grammar's edits).
 */
export interface GrammarShaping {
  /** The tools offered this turn (the prompt lists them all whatever the grammar leaves out). */
  readonly offered: readonly string[];
  /** The gate's options with the strategies' completion hooks applied. */
  readonly verdict: VerdictOptions;
  /** Tools the grammar leaves out this turn, in the order the hooks named them. */
  excluded: string[];
  paths?: ModelChatRequest["grammar_paths"];
  edits?: ModelChatRequest["grammar_edits"];
  /** Only each call's required parameters. */
  requiredOnly?: boolean;
  /** The workspace files a read file imports and the run has not read yet, nearest first. */
  importsToRead: string[];
}

/** Runs a call aide adds to the batch itself (through the same gate, sandbox and events as the model's); injected by the loop. */
export type RunAddedCall = (context: RunContext, call: BatchCall, record: boolean) => Promise<CallOutcome>;

/**
 * A strategy: one experiment setting of the contracts' table (setting-table.ts, which also says
 * which other settings it acts only with) and the hooks of the loop it uses. The loop runs the
 * hooks of the active strategies in the registry's order (strategy-registry.ts); a strategy keeps
 * its scratch state in its own slot (`strategyState`), not in the run's context.
 */
export interface Strategy {
  setting: SettingName;
  /** Whether this run turns it on; absent: the run's setting is `true`. */
  activeIn?(context: RunContext): boolean;
  /** Options of the system contract, asked for when it is built (once per run and mode). */
  systemPrompt?(context: RunContext, fit: ModelFit): Promise<Partial<SystemPromptInput>>;
  /**
   * A block of the first turn's stable prefix (after the memories and the code map), asked for once
   * per run; `facts` go into `context.built`. Must not throw.
   */
  stablePrefix?(context: RunContext, fit: ModelFit, budgetChars: number, runCall: RunAddedCall): Promise<{ text: string; facts?: Record<string, number> }>;
  /** Shapes the local model's grammar for one request. */
  grammar?(context: RunContext, shaping: GrammarShaping): Promise<void> | void;
  /** After a batch ran (its outcomes in `context.state.batch`): may rewrite them or end the run; returns notices for the model. */
  afterBatch?(context: RunContext, runCall: RunAddedCall): Promise<string[]> | string[];
  /** A reply with no usable call, only these parse errors (`tools`: the run's catalog): an instruction in place of "fix the call", or undefined. */
  unusableReply?(context: RunContext, errors: readonly string[], tools: readonly ToolDescriptor[]): string | undefined;
  /** The evidence gate's options for the completion check. */
  completion?(options: VerdictOptions): VerdictOptions;
}
