/** One definition in a file: 1-based inclusive line range, its first line as the signature. */
export interface CodeDefinition {
  name: string;
  kind: string;
  startLine: number;
  endLine: number;
  signature: string;
}

/** What the map and the definitions tool know about one file's content. */
export interface FileTags {
  language: string;
  definitions: CodeDefinition[];
  /** Names the file uses that it does not define there (each once per occurrence, capped). */
  references: string[];
}
