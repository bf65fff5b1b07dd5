export type Intent = "artifacts" | "execution" | "source" | "reports" | "comparisons" | "processes" | "git" | "memory" | "delegation";

export const INTENTS: readonly Intent[] = ["artifacts", "execution", "source", "reports", "comparisons", "processes", "git", "memory", "delegation"];

/** Light classifiers, regular-expression based so a reader can inspect them. Routing only, never authorization. */
const CLASSIFIERS: Record<Intent, RegExp> = {
  artifacts: /\b(create|write|make|generate|add|implement|fix|edit|update|modify|refactor|rename|delete|remove|patch|save|scaffold|convert|rewrite|change|replace|files?)\b/i,
  execution: /\b(run|runs|execute|tests?|testing|build|compile|lint|install|debug|reproduce|analy[sz]e|check|verify|benchmark|measure|profile|npm|pnpm|yarn|pytest|cargo|make|node|python3?)\b/i,
  source: /\b(script|program|function|method|class|module|code|implement|source|bug|refactor|compile|library|api|endpoint)\b|\.(py|ts|tsx|js|mjs|go|rs|java|rb|c|cpp|sh)\b/i,
  reports: /\b(report|summary|summari[sz]e|write-?up|findings|results|document(ation)?)\b/i,
  comparisons: /\b(compare|comparison|comparing|versus|vs\.?|benchmark|faster|slower|difference between|trade-?offs?)\b/i,
  processes: /\b(server|serve|daemon|background|watch|long[- ]running|listen(ing)?|port \d+|dev server|process(es)?|start (the|a) (app|service|server)|tail -f|poll)\b/i,
  git: /\b(git|commit|commits|branch|diff|staged|unstaged|uncommitted|merge|rebase|history|blame|what changed|changes since|repo status)\b/i,
  memory: /\b(remember|recall|forget|memory|memories|note that|my preferences?|last time|from now on)\b/i,
  delegation: /\b(delegate|sub-?agents?|spawn|in parallel|parallelize|helper agent|split the work|independent(ly)? (investigate|review))\b/i,
};

export function classifyIntents(task: string): Intent[] {
  return INTENTS.filter((intent) => CLASSIFIERS[intent].test(task));
}
