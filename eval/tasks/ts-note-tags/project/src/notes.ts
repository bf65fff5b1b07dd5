export interface Note {
  title: string;
  body: string;
  createdAt: number;
}

export function createNote(title: string, body: string): Note {
  return { title: title.trim(), body, createdAt: Date.now() };
}
