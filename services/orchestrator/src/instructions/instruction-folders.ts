/** At most this many folders are looked at besides the root (a request carries at most 64). */
const maxFolders = 32;

const pathToken = /(?:^|[\s`'"([])((?:\.\/)?[A-Za-z0-9_.@-]+(?:\/[A-Za-z0-9_.@-]+)+\/?)/g;

/**
 * The folders on the way to `paths` (workspace-relative), shallow to deep, without the root:
 * `pkg/a/b.ts` gives `pkg`, `pkg/a`. A path ending in `/` or whose last part has no extension
 * counts as a folder itself. Absolute paths and `..` are never followed.
 */
export function foldersOfPaths(paths: readonly string[]): string[] {
  const folders: string[] = [];
  for (const raw of paths) {
    const path = raw.replace(/^\.\//, "");
    if (path.startsWith("/") || path.split("/").includes("..")) continue;
    const parts = path.split("/").filter((part) => part !== "" && part !== ".");
    const last = parts.at(-1) ?? "";
    const isFolder = raw.endsWith("/") || !/\.[A-Za-z0-9]+$/.test(last);
    const depth = isFolder ? parts.length : parts.length - 1;
    for (let index = 1; index <= depth; index += 1) {
      const folder = parts.slice(0, index).join("/");
      if (!folders.includes(folder)) folders.push(folder);
    }
  }
  return folders.sort((a, b) => a.split("/").length - b.split("/").length || a.localeCompare(b)).slice(0, maxFolders);
}

/** The folders on the way to the paths a task names (`fix src/api/routes.ts`), for the run's start. */
export function foldersOnTheWay(task: string): string[] {
  const paths = [...task.matchAll(pathToken)].map((match) => match[1]).filter((path) => !/^[a-z]+:\/\//i.test(path));
  return foldersOfPaths(paths);
}
