// Hidden check of a question: the answer must name every expected fact.
import { readFileSync } from "node:fs";
const answer = (() => { try { return readFileSync(".eval-answer.txt", "utf8").toLowerCase(); } catch { return ""; } })();
const expected = ["pytest", "tests/unit"];
const missing = expected.filter((fact) => !answer.includes(fact.toLowerCase()));
if (missing.length > 0) { console.error(`the answer does not name: ${missing.join(", ")}`); process.exit(1); }
