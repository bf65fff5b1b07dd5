/** XML tool calls as a model writes them, for scripted transcripts. */
export const call = {
  read: (path: string) => `<read_file>\n<path>${path}</path>\n</read_file>`,
  write: (path: string, content: string) => `<write_file>\n<path>${path}</path>\n<content>\n${content}\n</content>\n</write_file>`,
  replace: (path: string, search: string, replace: string) =>
    `<replace_in_file>\n<path>${path}</path>\n<diff>\n<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>`,
  run: (command: string) => `<run_command>\n<command>${command}</command>\n</run_command>`,
  complete: (result: string) => `<attempt_completion>\n<result>${result}</result>\n</attempt_completion>`,
};
