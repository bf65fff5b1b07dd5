/** A gitignore-style glob as a RegExp over a relative path (`*` within a segment, `**` across). */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i];
    if (char === "*") {
      if (glob[i + 1] === "*") {
        const slashAfter = glob[i + 2] === "/";
        source += slashAfter ? "(?:.*/)?" : ".*";
        i += slashAfter ? 2 : 1;
      } else source += "[^/]*";
    } else if (char === "?") source += "[^/]";
    else if (char === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end === -1) source += "\\[";
      else {
        source += `[${glob
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else if (char === "{") {
      const end = glob.indexOf("}", i + 1);
      if (end === -1) source += "\\{";
      else {
        source += `(?:${glob
          .slice(i + 1, end)
          .split(",")
          .map((part) => part.replace(/[.+^$()|\\]/g, "\\$&").replace(/\*/g, "[^/]*"))
          .join("|")})`;
        i = end;
      }
    } else source += char.replace(/[.+^$()|\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** ripgrep's --glob: a glob without `/` matches the file name at any depth. */
export function includeMatcher(glob: string): (relativePath: string) => boolean {
  const regex = globToRegExp(glob.replace(/^\//, ""));
  if (!glob.includes("/")) return (path) => regex.test(path.split("/").pop() ?? path);
  return (path) => regex.test(path);
}
