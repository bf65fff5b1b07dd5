/** Contacts from CSV text with a header line `name,email`. */
export function importRows(csv) {
  const [, ...lines] = csv.trim().split("\n");
  const rows = [];
  for (const line of lines) {
    const [name = "", email = ""] = line.split(",").map((cell) => cell.trim());
    if (email === "") continue;
    rows.push({ name, email });
  }
  return rows;
}
