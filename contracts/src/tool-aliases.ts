/**
 * Argument names models commonly use instead of the catalog's (habits from other agents and
 * from training data), mapped to the real name. One table for the wire: the orchestrator's
 * parser accepts these tags and the tools service repairs them (and says so to the model). An
 * alias applies only to a tool that has the target parameter and no parameter of the alias's name.
 */
export const toolArgumentAliases: Readonly<Record<string, string>> = {
  file_path: "path",
  filepath: "path",
  filePath: "path",
  file: "path",
  filename: "path",
  file_name: "path",
  target_file: "path",
  dir: "path",
  directory: "path",
  dir_path: "path",
  cmd: "command",
  command_line: "command",
  shell_command: "command",
  contents: "content",
  text: "content",
  file_text: "content",
  file_content: "content",
  regex: "pattern",
  query: "pattern",
  search: "pattern",
  working_directory: "cwd",
  workdir: "cwd",
  timeout: "timeout_ms",
  start_line: "offset",
  line_count: "limit",
  patch: "diff",
  unified_diff: "diff",
  process_id: "id",
  pid: "id",
};
