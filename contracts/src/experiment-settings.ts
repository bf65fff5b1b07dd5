import { z } from "zod";
import { PromptTierSchema } from "./model-profile.js";

/**
 * Per-session experiment settings (seed 002's experiment contract; `aide eval run --arm`): each
 * one overrides a decision the orchestrator otherwise makes itself, and each value is an
 * identifier that goes into `run.created` (and, for the scheduler and the context policy, into
 * every event's envelope), so an evaluation can tell the arms apart from the events alone.
 * Unknown settings and unknown values are refused (VALIDATION naming the field).
 */

/** `safe-parallel-v1`: consecutive parallel-safe reads of a batch run together. `serial-v1`: every call alone, in order. */
export const SchedulerIdSchema = z.enum(["safe-parallel-v1", "serial-v1"]);
export type SchedulerId = z.infer<typeof SchedulerIdSchema>;

/**
 * `stable-prefix-compact-v1`: when the transcript nears the budget the model summarizes its oldest
 * part once. `stable-prefix-drop-v1`: never summarize; the oldest messages are dropped to fit.
 */
export const ContextPolicyIdSchema = z.enum(["stable-prefix-compact-v1", "stable-prefix-drop-v1"]);
export type ContextPolicyId = z.infer<typeof ContextPolicyIdSchema>;

/**
 * How the model may change files. `routed-v1`: the router's choice (write_file and replace_in_file
 * always, apply_patch when the request calls for it). The others offer one edit tool only:
 * `search-replace` (replace_in_file), `unified-diff` (apply_patch), `whole-file` (write_file).
 */
export const EditFormatSchema = z.enum(["routed-v1", "search-replace", "unified-diff", "whole-file"]);
export type EditFormat = z.infer<typeof EditFormatSchema>;

/** What the tool-call grammar covers (local models): prose then the call, or the whole reply. */
export const GrammarScopeSchema = z.enum(["call", "reply"]);
export type GrammarScope = z.infer<typeof GrammarScopeSchema>;

/**
 * When the grammar (local models) offers `attempt_completion`: `off`, always (the default);
 * `evidence`, only once the run has the evidence the gate could accept (the gate stays the authority).
 */
export const CompletionGrammarSchema = z.enum(["off", "evidence"]);
export type CompletionGrammar = z.infer<typeof CompletionGrammarSchema>;

/** How a model writes its tool calls: the XML text protocol, or its chat template's own format. */
export const ToolFormatSchema = z.enum(["xml", "native"]);
export type ToolFormat = z.infer<typeof ToolFormatSchema>;

/** An arm's name: what a report groups by. */
export const ArmNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "an arm name is 1-64 letters, digits, '.', '_' or '-'");

export const ExperimentSettingsSchema = z
  .object({
    arm: ArmNameSchema.optional(),
    /** Absent: the tier the model's window or probe profile gives. */
    prompt_tier: PromptTierSchema.optional(),
    /** Constrain decoding with the tool-call grammar (local models); absent: the probe's choice. */
    grammar: z.boolean().optional(),
    /** What the grammar covers: `call` (prose, then the call) or `reply` (the whole reply: one call alone; the default). */
    grammar_scope: GrammarScopeSchema.optional(),
    /**
     * How the model writes its calls: `xml`, the text protocol the prompt teaches (the default);
     * `native`, the model's own format from its chat template (Qwen's `<tool_call>` JSON), with
     * the tools listed by the template and no grammar.
     */
    tool_format: ToolFormatSchema.optional(),
    /** The grammar also encodes the argument schemas' own rules (argument sets, integer ranges, string lengths); default on. */
    grammar_schema: z.boolean().optional(),
    context_policy: ContextPolicyIdSchema.optional(),
    edit_format: EditFormatSchema.optional(),
    scheduler: SchedulerIdSchema.optional(),
    // The strategies of issue 28 (bench/results/strategies.md): each off unless set, until an eval
    // shows a significant win on a model.
    /** After an applied edit, aide runs the project's test command (through the approval gate) and shows the result. */
    auto_test: z.boolean().optional(),
    /** The test command auto_test and prefix_failing_output run; absent: the one detected from the workspace's files. */
    test_command: z.string().trim().min(1).max(500).optional(),
    /** After an applied edit, the new diagnostics the tools service found are restated to the model on their own. */
    auto_lint: z.boolean().optional(),
    /** The test command's output, run once before turn 1 (sandboxed, gated), in the first turn's stable prefix. */
    prefix_failing_output: z.boolean().optional(),
    /** The workspace's code map in the first turn's stable prefix; absent: AIDE_CODE_MAP_IN_PREFIX. */
    code_map: z.boolean().optional(),
    /** One example of a good call per offered tool in the compact tier's prefix (the full tier always has them). */
    few_shot: z.boolean().optional(),
    /** The same failing call twice gets a different instruction; a third time ends the run. */
    loop_breaker: z.boolean().optional(),
    /**
     * The grammar spells the `path` of a call that reads or changes an existing file (read_file,
     * replace_in_file) as one of the workspace's files, and a new file's path (write_file) as one of
     * them or a plain relative path (letters, digits, `_`, `.`, `-`, `/`); a folder's (list_dir,
     * search_files) as one of the workspace's folders.
     */
    path_grammar: z.boolean().optional(),
    /**
     * Until the run has read something of the workspace (a successful read_file, list_dir,
     * search_files, list_code_definitions or code_map), the grammar offers only those tools; the
     * prompt still lists them all.
     */
    explore_first: z.boolean().optional(),
    /**
     * The grammar spells replace_in_file's `path` and `search` together as a file this run read
     * and one of its current lines (a line found once in it), with only the search/replace form.
     */
    search_grammar: z.boolean().optional(),
    /**
     * Since the run's last applied change: after two successful reads that show no file's text,
     * read_file is the only reading tool in the grammar; once a read_file succeeded, none is,
     * until a change is applied. The prompt still lists them all.
     */
    act_after_reads: z.boolean().optional(),
    /**
     * With act_after_reads: after a read, the reads stay open while a file read since the last
     * change imports a workspace file this run has not read (under path_grammar the read's path is
     * one of them), up to three reads; then the change stage opens.
     */
    follow_imports: z.boolean().optional(),
    /**
     * With search_grammar: the grammar spells replace_in_file's REPLACE as one line that starts
     * with the chosen SEARCH line's own indent (a one-line change; no new lines, no protocol tags).
     */
    line_edits: z.boolean().optional(),
    /** The grammar spells only each call's required parameters; the optional ones (offsets, limits, flags) take their defaults. */
    lean_calls: z.boolean().optional(),
    /**
     * The evidence gate takes a run (run_command, process_poll) or a clean type check (diagnostics)
     * after a change to code or a build file as its verification, not a read back; default off
     * (seed 002's minimum: a later read verifies a change).
     */
    code_needs_run: z.boolean().optional(),
    /** `evidence`: the grammar offers attempt_completion only once the evidence gate could accept one (issue 28); default off. */
    completion_grammar: CompletionGrammarSchema.optional(),
    /** Project instructions (AGENTS.md…): off loads none and never asks; on trusts what is found (eval runs are headless). Absent: the person's consent. */
    instructions: z.boolean().optional(),
  })
  .strict();
export type ExperimentSettings = z.infer<typeof ExperimentSettingsSchema>;

/** The setting names an arm may set (for messages that list them). */
export const experimentSettingNames = [
  "prompt_tier", "grammar", "grammar_schema", "tool_format", "context_policy", "edit_format", "scheduler",
  "auto_test", "test_command", "auto_lint", "prefix_failing_output", "code_map", "few_shot", "loop_breaker", "path_grammar", "explore_first", "search_grammar", "line_edits", "act_after_reads", "follow_imports", "lean_calls", "code_needs_run", "completion_grammar", "instructions",
] as const;

/** The on/off strategies, as `run.created` records them (false when the start did not set one). */
export const strategySettingNames = ["auto_test", "auto_lint", "prefix_failing_output", "code_map", "few_shot", "loop_breaker", "path_grammar", "explore_first", "search_grammar", "line_edits", "act_after_reads", "follow_imports", "lean_calls", "code_needs_run"] as const;
export type StrategySetting = (typeof strategySettingNames)[number];

/**
 * What `run.created` records of the run's experiment: the identifiers in force (defaults filled
 * in) and the settings the start asked for (`arm`, `prompt_tier`, `grammar`, `grammar_scope`, `grammar_schema` only when set; the
 * tier in force is in each `context.built`). Identifiers are strings so that events of older
 * strategies still parse on replay.
 */
export const RunExperimentSchema = z.object({
  strategy: z.string(),
  scheduler: z.string(),
  context_policy: z.string(),
  edit_format: z.string(),
  arm: z.string().optional(),
  prompt_tier: PromptTierSchema.optional(),
  grammar: z.boolean().optional(),
  grammar_scope: GrammarScopeSchema.optional(),
  grammar_schema: z.boolean().optional(),
  /** The tool-call format the start asked for (absent: the model's entry decides). */
  tool_format: z.string().optional(),
  /** Each strategy in force (the start's setting or its default); absent in events of older runs. */
  auto_test: z.boolean().optional(),
  test_command: z.string().optional(),
  auto_lint: z.boolean().optional(),
  prefix_failing_output: z.boolean().optional(),
  code_map: z.boolean().optional(),
  few_shot: z.boolean().optional(),
  loop_breaker: z.boolean().optional(),
  path_grammar: z.boolean().optional(),
  explore_first: z.boolean().optional(),
  search_grammar: z.boolean().optional(),
  line_edits: z.boolean().optional(),
  act_after_reads: z.boolean().optional(),
  follow_imports: z.boolean().optional(),
  lean_calls: z.boolean().optional(),
  code_needs_run: z.boolean().optional(),
  /** The completion_grammar strategy in force (`off` when the start did not set it); absent in events of older runs. */
  completion_grammar: z.string().optional(),
  /** The instructions setting when the start set one (absent: the person's consent decides). */
  instructions: z.boolean().optional(),
  /** Where the edit format came from: the start's setting, the model's registry entry, or the default. */
  edit_format_source: z.enum(["setting", "model", "default"]).optional(),
});
export type RunExperiment = z.infer<typeof RunExperimentSchema>;

/** The edit format when a start sets none (the router's choice). */
export const defaultEditFormat: EditFormat = "routed-v1";

/** What the orchestrator decides when a start sets nothing: identifiers, and the strategies it turns on by configuration. */
export interface ExperimentDefaults {
  strategy: string;
  scheduler: string;
  context_policy: string;
  /** The model's own edit format (its registry entry's `editFormat`), used when the start sets none. */
  edit_format?: EditFormat;
  strategies?: Partial<Record<StrategySetting, boolean>>;
}

/** The experiment a run with these settings runs under, as `run.created` records it. */
export function runExperimentOf(settings: ExperimentSettings | undefined, defaults: ExperimentDefaults): RunExperiment {
  const strategies = Object.fromEntries(strategySettingNames.map((name) => [name, settings?.[name] ?? defaults.strategies?.[name] ?? false]));
  const editFormatSource = settings?.edit_format !== undefined ? "setting" : defaults.edit_format !== undefined ? "model" : "default";
  return {
    strategy: defaults.strategy,
    scheduler: settings?.scheduler ?? defaults.scheduler,
    context_policy: settings?.context_policy ?? defaults.context_policy,
    edit_format: settings?.edit_format ?? defaults.edit_format ?? defaultEditFormat,
    edit_format_source: editFormatSource,
    ...strategies,
    completion_grammar: settings?.completion_grammar ?? "off",
    ...(settings?.test_command !== undefined ? { test_command: settings.test_command } : {}),
    ...(settings?.arm !== undefined ? { arm: settings.arm } : {}),
    ...(settings?.prompt_tier !== undefined ? { prompt_tier: settings.prompt_tier } : {}),
    ...(settings?.grammar !== undefined ? { grammar: settings.grammar } : {}),
    ...(settings?.grammar_scope !== undefined ? { grammar_scope: settings.grammar_scope } : {}),
    ...(settings?.grammar_schema !== undefined ? { grammar_schema: settings.grammar_schema } : {}),
    ...(settings?.tool_format !== undefined ? { tool_format: settings.tool_format } : {}),
    ...(settings?.instructions !== undefined ? { instructions: settings.instructions } : {}),
  };
}
