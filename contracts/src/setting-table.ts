import { z } from "zod";
import { PromptTierSchema } from "./model-profile.js";

/**
 * The one table of experiment settings (`aide run --setting`, `aide eval run --arm`, the start
 * command's `experiment`). Each setting overrides a decision the orchestrator otherwise makes
 * itself. Everything that lists the settings is derived from this table: the start command's
 * schema and `run.created`'s record of it (experiment-settings.ts), the CLI's parsing and help, the
 * gateway's openapi.json, `aide settings` and docs/settings.md. Adding a setting is one entry here
 * (and, in the orchestrator, one strategy module that reads it).
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

export interface SettingSpec<S extends z.ZodType = z.ZodType> {
  /** The values the start command accepts. */
  schema: S;
  /** The value a plain run (no setting) uses; absent when `decidedBy` decides it. */
  default?: z.infer<S>;
  /** What decides the value in a plain run when no fixed default applies (or what may change the default). */
  decidedBy?: string;
  /** What the setting does, for the help, the docs and the API's schema. */
  description: string;
  /**
   * How `run.created` records it: `in-force`, always, with the default filled in (so the arms of an
   * evaluation tell apart from the events alone); `when-set`, only when the start set it.
   */
  recorded: "in-force" | "when-set";
  /** Its field in `run.created` (loose, so events of older runs and older identifiers still parse). */
  recordSchema: z.ZodType;
  /** Values `--arm`/`--setting` accept beyond the schema's own (on/off for a boolean, an enum's options). */
  armValues?: readonly string[];
  /** Settings it acts only together with. */
  requires?: readonly string[];
}

/** A table entry; `default`, `recorded` and `recordSchema` keep their own types (the derived types know them). */
function setting<S extends z.ZodType, R extends z.ZodType, Rec extends SettingSpec["recorded"], D extends z.infer<S> | undefined = undefined>(
  spec: SettingSpec<S> & { default?: D; recorded: Rec; recordSchema: R },
): SettingSpec<S> & { default: D; recorded: Rec; recordSchema: R } {
  return spec as SettingSpec<S> & { default: D; recorded: Rec; recordSchema: R };
}
/** An on/off strategy: off in a plain run, recorded in force. */
const strategy = (description: string, extra: Pick<SettingSpec, "decidedBy" | "requires"> = {}) =>
  setting({ schema: z.boolean(), default: false as boolean, description, recorded: "in-force", recordSchema: z.boolean().optional(), ...extra });

export const settingTable = {
  prompt_tier: setting({
    schema: PromptTierSchema,
    decidedBy: "the model's probe profile, else its window (compact up to 8,192 tokens)",
    description: "the system prompt and tool set of that tier, whatever the model's window says",
    recorded: "when-set",
    recordSchema: PromptTierSchema.optional(),
  }),
  grammar: setting({
    schema: z.boolean(),
    decidedBy: "the model's probe profile (whether its calls are more often valid with the grammar)",
    description: "grammar-constrained tool calls for a local model; `call`/`reply` also set its scope (`grammar_scope`)",
    recorded: "when-set",
    recordSchema: z.boolean().optional(),
    armValues: ["on", "off", "call", "reply"],
  }),
  grammar_scope: setting({
    schema: GrammarScopeSchema,
    default: "reply",
    description: "what the grammar covers: `call`, prose then one call; `reply`, the whole reply is one call alone",
    recorded: "when-set",
    recordSchema: GrammarScopeSchema.optional(),
  }),
  grammar_schema: setting({
    schema: z.boolean(),
    default: true,
    description: "the grammar also encodes the argument schemas' own rules (argument sets, integer ranges, string lengths, one-line paths and commands)",
    recorded: "when-set",
    recordSchema: z.boolean().optional(),
  }),
  tool_format: setting({
    schema: ToolFormatSchema,
    decidedBy: "the model's registry entry (`nativeTools`), else `xml`",
    description:
      "how the model writes its calls: `xml`, the text protocol the prompt teaches; `native`, the model's own format from its chat template (Qwen's `<tool_call>` JSON; the template lists the tools, no grammar)",
    recorded: "when-set",
    recordSchema: z.string().optional(),
  }),
  context_policy: setting({
    schema: ContextPolicyIdSchema,
    default: "stable-prefix-compact-v1",
    description: "near the budget, summarize the oldest part once (`stable-prefix-compact-v1`), or never summarize and drop the oldest messages (`stable-prefix-drop-v1`)",
    recorded: "in-force",
    recordSchema: z.string(),
  }),
  edit_format: setting({
    schema: EditFormatSchema,
    default: "routed-v1",
    decidedBy: "the model's registry entry (`editFormat` in models.json, `aide models edit-format`), else the default",
    description: "the router's edit tools (`routed-v1`), or only `replace_in_file` (`search-replace`), `apply_patch` (`unified-diff`) or `write_file` (`whole-file`)",
    recorded: "in-force",
    recordSchema: z.string(),
  }),
  scheduler: setting({
    schema: SchedulerIdSchema,
    default: "safe-parallel-v1",
    description: "consecutive parallel-safe reads of a batch run together (`safe-parallel-v1`), or every call alone, in order (`serial-v1`)",
    recorded: "in-force",
    recordSchema: z.string(),
  }),
  workspace_files: strategy("the first turn's prefix lists the workspace's files (bounded) and says paths are relative to its root"),
  auto_test: strategy("after an applied edit, aide runs the project's test command (through the approval gate) and feeds the result back"),
  test_command: setting({
    schema: z.string().trim().min(1).max(500),
    decidedBy: "detected from the workspace's root files (package.json, pytest, go.mod, Cargo.toml, Maven, Gradle)",
    description: "the test command auto_test and prefix_failing_output run (in an arm: free text without commas)",
    recorded: "when-set",
    recordSchema: z.string().optional(),
  }),
  auto_lint: strategy("after an applied edit, the new diagnostics the tools service found are restated to the model as an instruction of their own"),
  prefix_failing_output: strategy("the test command's output, run once before turn 1 (sandboxed, gated), cut to the tier's budget, in the first turn's stable prefix"),
  code_map: strategy("the workspace's code map in the first turn's stable prefix", { decidedBy: "AIDE_CODE_MAP_IN_PREFIX=1 turns it on for every run" }),
  few_shot: strategy("one example of a good call per offered tool in the compact tier's prefix (the full tier always has them)"),
  loop_breaker: strategy("the same failing call (or malformed reply) twice gets a different instruction; a third time ends the run (MISTAKE_LIMIT)"),
  path_grammar: strategy(
    "the grammar spells the `path` of read_file and replace_in_file as one of the workspace's files, write_file's as one of them or a plain relative path, and that of list_dir and search_files as one of its folders; the tools service still resolves and jails every path",
  ),
  explore_first: strategy(
    "until the run has read something of the workspace (a successful read_file, list_dir, search_files, list_code_definitions or code_map), the grammar offers only those tools; the prompt still lists them all",
  ),
  search_grammar: strategy(
    "the grammar spells replace_in_file's `path` and `search` together as a file this run read and one of its current lines (a line found once in it), in the search/replace form only; before any read, replace_in_file is out of the grammar",
  ),
  line_edits: strategy("the grammar spells replace_in_file's `replace` as one line that starts with the chosen `search` line's own indent (a one-line change)", { requires: ["search_grammar"] }),
  act_after_reads: strategy(
    "since the run's last applied change: after two successful reads that show no file's text, read_file is the only reading tool in the grammar; once a read_file succeeded, only the tools that change files and attempt_completion are, until a change is applied; the prompt still lists them all",
  ),
  follow_imports: strategy(
    "after a read, the reads stay open (read_file alone) while a file read since the last change imports a workspace file this run has not read (under path_grammar the read's path is one of them), up to three reads; then the change stage opens",
    { requires: ["act_after_reads"] },
  ),
  lean_calls: strategy("the grammar spells only each call's required parameters; the optional ones (offsets, limits, flags) take their defaults"),
  code_needs_run: strategy(
    "the evidence gate takes a run (run_command, process_poll) or a clean type check (diagnostics) after a change to code or a build file as its verification, not a read back (off: a later read verifies a change)",
  ),
  completion_grammar: setting({
    schema: CompletionGrammarSchema,
    default: "off",
    description: "`evidence`: the grammar offers attempt_completion only once the evidence gate could accept one (it stays in the prompt; the gate still judges every completion)",
    recorded: "in-force",
    recordSchema: z.string().optional(),
  }),
  instructions: setting({
    schema: z.boolean(),
    decidedBy: "the person's consent: each file found is asked about (`--trust-instructions` or AIDE_INSTRUCTIONS=trust|ignore change that; `aide eval run` trusts them, as it has no one to ask)",
    description: "project instructions (AGENTS.md and its fallbacks): `off` loads none and never asks; `on` trusts what is found",
    recorded: "when-set",
    recordSchema: z.boolean().optional(),
  }),
} satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof settingTable;

/** Every setting's name, in the table's order. */
export const settingNames = Object.keys(settingTable) as SettingName[];

/** The settings whose value is fixed in a plain run, by name (what `default` says in the table). */
type Defaults = { [K in SettingName as (typeof settingTable)[K]["default"] extends undefined ? never : K]: z.infer<(typeof settingTable)[K]["schema"]> };
export const settingDefaults = Object.fromEntries(settingNames.flatMap((name) => (settingTable[name].default !== undefined ? [[name, settingTable[name].default]] : []))) as Defaults;

/** The values a setting takes on the command line (`--arm`, `--setting`); undefined: free text. */
export function armValuesOf(name: SettingName): readonly string[] | undefined {
  const spec: SettingSpec = settingTable[name];
  if (spec.armValues !== undefined) return spec.armValues;
  if (spec.schema instanceof z.ZodBoolean) return ["on", "off"];
  if (spec.schema instanceof z.ZodEnum) return spec.schema.options as string[];
  return undefined;
}

/** A setting's value in a plain run, as a person reads it (`on`, `off`, an identifier, or what decides it). */
export function plainRunValueOf(name: SettingName): string {
  const spec: SettingSpec = settingTable[name];
  const value = spec.default === undefined ? undefined : typeof spec.default === "boolean" ? (spec.default ? "on" : "off") : String(spec.default);
  if (value === undefined) return spec.decidedBy ?? "unset";
  return spec.decidedBy === undefined ? value : `${value} (${spec.decidedBy})`;
}
