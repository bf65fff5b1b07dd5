import { log } from "./log.js";

/** Contacts from CSV text with a header line `name,email`. */
export function importRows(csv) {
  const [, ...lines] = csv.trim().split("\n");
  const rows = [];
  lines.forEach((line, index) => {
    const [name = "", email = ""] = line.split(",").map((cell) => cell.trim());
    if (email === "") {
      log("warn", "import.row_dropped", { line: index + 2, reason: "no email" });
      return;
    }
    rows.push({ name, email });
  });
  return rows;
}
