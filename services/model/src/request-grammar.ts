import { settingDefaults, type ModelChatRequest } from "@aide/contracts";
import { buildToolCallGrammar } from "./tool-call-grammar.js";

/**
 * The tool-call grammar for a request (node-llama-cpp in-process, and llama-server's `grammar`
 * field: both are llama.cpp's GBNF), or undefined when decoding is not constrained.
 */
export function requestGrammar(spec: { grammar: boolean; maxOutputTokens: number; thinking: boolean }, request: ModelChatRequest): string | undefined {
  const choice = request.tool_choice ?? "auto";
  if (request.tools.length === 0 || choice === "none" || !(request.grammar ?? spec.grammar)) return undefined;
  // When a call is required, the prose before it must leave room for the call in the token budget
  // (a token is at least one character, so half the budget in characters is a safe bound).
  const maxTokens = request.max_tokens ?? spec.maxOutputTokens;
  const maxProseChars = choice === "required" ? Math.max(0, Math.min(256, Math.floor(maxTokens / 2))) : undefined;
  // The completion_grammar strategy: tools the grammar leaves out (they stay in the prompt), unless none would be left.
  const excluded = new Set(request.grammar_exclude_tools ?? []);
  const offered = request.tools.filter((tool) => !excluded.has(tool.name));
  return buildToolCallGrammar(offered.length > 0 ? offered : request.tools, {
    choice,
    maxCalls: request.max_tool_calls ?? 1,
    thinking: spec.thinking,
    // The defaults (the setting table's): the whole reply is the call, and its values keep the
    // argument schemas' own rules, so every call the grammar allows validates.
    scope: request.grammar_scope ?? settingDefaults.grammar_scope,
    schema: request.grammar_schema ?? settingDefaults.grammar_schema,
    ...(maxProseChars !== undefined ? { maxProseChars } : {}),
    // The path_grammar strategy: paths spelled as the workspace's files (or a plain new path).
    ...(request.grammar_paths !== undefined
      ? {
          paths: {
            choices: request.grammar_paths.paths,
            tools: request.grammar_paths.tools,
            newPathTools: request.grammar_paths.new_path_tools ?? [],
            directories: request.grammar_paths.directories ?? [],
            directoryTools: request.grammar_paths.directory_tools ?? [],
          },
        }
      : {}),
    // The search_grammar strategy: replace_in_file's path and SEARCH text spelled as a read file and one of its lines (line_edits: REPLACE one line).
    ...(request.grammar_edits !== undefined ? { edits: { tool: request.grammar_edits.tool, files: request.grammar_edits.files, oneLine: request.grammar_edits.one_line === true } } : {}),
    // The lean_calls strategy: only the required parameters.
    ...(request.grammar_required_only === true ? { requiredOnly: true } : {}),
    // Only one call fits the budget by construction (scope reply, or one call after bounded prose counts too much).
    ...((request.grammar_scope ?? settingDefaults.grammar_scope) === "reply" ? { maxReplyTokens: maxTokens } : {}),
  });
}
