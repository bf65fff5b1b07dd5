export interface Note {
  title: string;
  body: string;
  createdAt: number;
  tags: string[];
}

export function createNote(title: string, body: string, tags: string[] = []): Note {
  return { title: title.trim(), body, createdAt: Date.now(), tags: [...new Set(tags.map((tag) => tag.toLowerCase()))] };
}
