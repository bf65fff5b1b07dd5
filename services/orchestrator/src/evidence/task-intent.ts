/**
 * What a task asks for, read from its wording (English, German, French, Spanish). Only a plain
 * question or a plain request to run something is exempt from the change requirement; anything
 * else — a change, a defect report without any verb ("uppercase letters vanish when lowercase is
 * false"), a bare file or test name, text the patterns do not understand — is a `change`: when in
 * doubt, strict.
 */
export type TaskIntent = "conversation" | "question" | "execution" | "change";

type SentenceKind = "question" | "execution" | "change" | "defect" | "neutral";

/** Word boundaries that also hold for accented letters (ü, é, ñ). */
const words = (alternatives: string): string => `(?<![\\p{L}\\p{N}_])(?:${alternatives})(?![\\p{L}\\p{N}_])`;
/** A verb opening a sentence: followed by a space, a comma or the end ("test/a.js fails" does not open with "test"). */
const startsWith = (alternatives: string): RegExp => new RegExp(`^\\s*(?:${words(alternatives)})(?=[\\s,:]|$)`, "iu");
const anywhere = (alternatives: string): RegExp => new RegExp(words(alternatives), "iu");

const GREETING = /^\s*(hi|hello|hey|thanks|thank you|ok|okay|hallo|danke|merci|bonjour|salut|hola|gracias)[\s!.,]*$/iu;

/** Imperatives that ask for a change (the verb forms a person writes at the start of a request). */
const CHANGE_IMPERATIVE = [
  // English
  "create|write|make|generate|build|add|implement|fix|repair|edit|update|modify|refactor|rename|save|produce|scaffold|set ?up|change|replace|remove|delete|patch|convert|port|migrate|rewrite|append|insert|correct|resolve|solve|address|clean ?up|bump|upgrade|downgrade|install|move|extract|improve|optimi[sz]e|restore|revert|undo|adjust|tweak|support|enable|disable|allow|prevent|ensure|stop|debug|include|drop|split|merge|format|document|comment out|translate|integrate|handle|get rid of|uncomment|apply|wire up|hook up|sort out",
  // German
  "behebe|beheb|repariere|korrigiere|ändere|änder|füge|erstelle|erstell|schreibe|schreib|entferne|lösche|aktualisiere|ersetze|benenne|implementiere|mach|mache|baue|bau|fixe|fix|passe|verbessere|refaktoriere|lege|speichere|verschiebe|installiere|sorge",
  // French
  "corrige|corrigez|répare|réparez|modifie|modifiez|change|changez|ajoute|ajoutez|crée|créez|écris|écrivez|supprime|supprimez|remplace|remplacez|renomme|renommez|mets à jour|mettez à jour|implémente|implémentez|fais|faites|règle|réglez|résous|résolvez|enlève|enlevez|installe|installez",
  // Spanish
  "corrige|arregla|repara|modifica|cambia|añade|agrega|crea|escribe|elimina|borra|quita|reemplaza|renombra|actualiza|implementa|haz|soluciona|resuelve|instala|mueve",
].join("|");

/** Infinitives after a polite request ("kannst du … beheben?", "peux-tu corriger …", "¿puedes arreglar …?"). */
const CHANGE_INFINITIVE = [
  "beheben|reparieren|korrigieren|ändern|hinzufügen|erstellen|schreiben|entfernen|löschen|aktualisieren|ersetzen|umbenennen|implementieren|machen|fixen|anpassen|bauen|verbessern",
  "corriger|réparer|modifier|changer|ajouter|créer|écrire|supprimer|remplacer|renommer|mettre à jour|implémenter|faire|régler|résoudre|enlever",
  "corregir|arreglar|reparar|modificar|cambiar|añadir|agregar|crear|escribir|eliminar|borrar|quitar|reemplazar|renombrar|actualizar|implementar|hacer|solucionar|resolver",
].join("|");

/** Imperatives that ask to run or examine something, not to change it (the evidence table's execute/test/analyze row). */
const EXECUTION_IMPERATIVE = [
  "run|execute|test|analy[sz]e|benchmark|measure|profile|compute|calculate|verify|reproduce|compile|lint|evaluate|inspect|audit|compare|time|try|type-?check|fetch|download|retrieve|query|ping|curl|request",
  "führe|starte|teste|prüfe|überprüfe|analysiere|miss|messe|vergleiche|kompiliere",
  "lance|lancez|exécute|exécutez|teste|testez|vérifie|vérifiez|analyse|analysez|mesure|mesurez|compare|comparez|compile",
  "ejecuta|corre|prueba|comprueba|verifica|analiza|mide|compara|lanza|compila",
].join("|");

/** Imperatives that ask for an answer that reading can give. */
const READ_IMPERATIVE = [
  "explain|describe|tell me|show me|show|list|find|locate|search|look for|look up|summari[sz]e|walk me through|read|outline|identify|point me to",
  "erkläre|erklär|erklären sie|beschreibe|zeige|zeig|liste|finde|suche|such|nenne|fasse|lies",
  "explique|expliquez|décris|décrivez|montre|montrez|liste|listez|trouve|trouvez|résume|résumez|cherche|cherchez|lis",
  "explica|explícame|explicame|describe|muestra|muéstrame|lista|encuentra|busca|resume|lee",
].join("|");

/** Requests to examine something: a defect named beside them makes them a request for a fix. */
const INVESTIGATE_IMPERATIVE = [
  "look at|look into|have a look at|investigate|examine|diagnose|check|review|figure out|find out",
  "untersuche|schau|sieh dir|prüfe|überprüfe",
  "regarde|regardez|examine|examinez|vérifie|vérifiez|étudie",
  "mira|revisa|investiga|examina|comprueba",
].join("|");

const QUESTION_START = new RegExp(
  [
    // English: wh-words that cannot open a declarative clause, or that are followed by a verb.
    `^\\s*${words("why|whose|whom")}`,
    `^\\s*${words("what|how|where|which|who|when")}(?:'s|'re|\\s+(?:is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|to|many|much|exactly|kind|part|happens|file|files|function|functions|module|class|test|tests|type|command|line|version))(?![\\p{L}])`,
    // German (wann, not wenn; verb-first questions end with "?")
    `^\\s*${words("was|warum|wieso|weshalb|wo|wie|welche|welcher|welches|welchen|wer|wann|woher|wozu|wofür|worin|womit|woran")}`,
    // French (quand/comment also open statements, so they need the question mark)
    `^\\s*${words("pourquoi|où|quel|quelle|quels|quelles|qui|combien|que|quoi|est-ce que|qu'est-ce que|qu'est-ce qui")}`,
    `^\\s*qu'`,
    // Spanish
    `^\\s*¿`,
    `^\\s*${words("qué|por qué|dónde|cómo|cuál|cuáles|quién|quiénes|cuándo|cuánto|cuántos|cuánta|cuántas")}`,
  ].join("|"),
  "iu",
);

const POLITE_REQUEST = startsWith(
  "can you|could you|would you|will you|can we|could we|please|kannst du|könntest du|können sie|könnten sie|würdest du|bitte|peux-tu|pouvez-vous|pourrais-tu|pourriez-vous|tu peux|vous pouvez|s'il te plaît|s'il vous plaît|puedes|podrías|podría|puede|por favor",
);
/** A change asked for in the middle of a statement: "read a.ts and fix it". */
const CHANGE_AFTER_CONNECTIVE = new RegExp(
  `${words("and|then|also|und|dann|auch|et|puis|ensuite|aussi|y|luego|también|después")}[,:]?\\s+(?:(?:also|then|dann|auch|please|bitte)\\s+)?${words(CHANGE_IMPERATIVE)}`,
  "iu",
);
/** A request inside any sentence, questions included: "why does it fail, and can you fix it?", "I need you to add …". */
const REQUEST_INSIDE = new RegExp(
  `${words("please|can you|could you|would you|will you|need you to|want you to|like you to|bitte|kannst du|könntest du|peux-tu|pouvez-vous|pourrais-tu|puedes|podrías|por favor")}[,:]?\\s+(?:${words("please|also|just|kindly|quickly|bitte|mal|auch|doch")}\\s+)*${words(CHANGE_IMPERATIVE)}`,
  "iu",
);
/** German, French and Spanish requests put the infinitive later: "kannst du den Fehler in a.ts beheben?". */
const REQUEST_WITH_INFINITIVE = new RegExp(
  `${words("bitte|kannst du|könntest du|können sie|könnten sie|würdest du|peux-tu|pouvez-vous|pourrais-tu|pourriez-vous|tu peux|vous pouvez|il faut|puedes|podrías|podría|puede|por favor|hay que")}.*${words(CHANGE_INFINITIVE)}`,
  "iu",
);
/**
 * A sentence that only forbids changes ("Do not change anything.", "Ändere nichts.") is a
 * constraint on the rest of the task, not a defect report ("do not" is defect wording) nor a request.
 */
const NO_CHANGE_CONSTRAINT =
  /^\s*(?:please\s+)?(?:(?:do not|don't|dont|never)\s+(?:change|modify|edit|touch|alter|rewrite|write to)\s+(?:anything|any(?:thing in| of the)? (?:files?|code|project|repo|repository|workspace)|the (?:code|files?|project|repo|repository|workspace))|(?:ändere|änder|verändere) nichts|ne (?:modifie|modifiez|change|changez|touche|touchez) (?:rien|à rien)|no (?:cambies|modifiques|toques) nada)\s*[.!]?\s*$/iu;

/** An English modal question about how to do something is a question ("how do I fix …?"), not a request. */
const HOW_TO = /^\s*(how|what|where|why)\b/i;

/** Wording that reports a defect: it asks for a fix even without a verb. */
const DEFECT = anywhere(
  [
    "fail|fails|failing|failed|broken|breaks|broke|crash|crashes|crashed|crashing|bug|bugs|buggy|error|errors|wrong|incorrect|vanish|vanishes|vanished|disappear|disappears|disappeared|missing|lost|drops|dropped|ignores|ignored|hangs|freezes|leaks|throws|exception|regression|doesn't|does not|don't|do not|isn't|is not|aren't|are not|won't|can't|cannot|never|no longer|instead of|should be|should not|shouldn't|expected|undefined|NaN|stuck|flaky|times out",
    "funktioniert nicht|geht nicht|klappt nicht|fehler|fehlt|fehlen|verschwinden|verschwindet|stürzt|absturz|kaputt|falsch|schlägt fehl|schlagen fehl|nicht mehr|ignoriert|statt",
    "ne fonctionne pas|ne marche pas|ne fonctionne plus|ne marche plus|bug|bogue|erreur|plante|échoue|échouent|disparaissent|disparaît|manque|manquent|cassé|cassée|incorrect|incorrecte|faux|au lieu de",
    "no funciona|no anda|falla|fallan|error|desaparece|desaparecen|se rompe|roto|rota|incorrecto|incorrecta|se cuelga|en lugar de|en vez de",
  ].join("|"),
);

/** True when the task's wording reports a defect (a question about a defect is about this workspace). */
export function reportsDefect(task: string): boolean {
  return DEFECT.test(task);
}

function sentences(task: string): string[] {
  return task
    .split(/(?<=[.!?;])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

/** "Ask a reviewer what a.txt says", "have a fixer create fix.txt": the request is what the helper is asked. */
const DELEGATED_QUESTION = /^(?:what|where|why|how|which|who|whether|if|when)\b/i;

function classifySentence(sentence: string): SentenceKind {
  const stripped = sentence.replace(/^[\s"'“„«(*-]+|^\d+[.)]\s*/u, "");
  const delegated = delegatedRequest(stripped);
  if (delegated !== undefined) return delegated;
  if (NO_CHANGE_CONSTRAINT.test(stripped)) return "neutral";
  const questionForm = QUESTION_START.test(stripped) || /\?\s*$/.test(stripped);
  if (REQUEST_INSIDE.test(stripped) || REQUEST_WITH_INFINITIVE.test(stripped)) return "change";
  if (!questionForm && CHANGE_AFTER_CONNECTIVE.test(stripped)) return "change";
  if (POLITE_REQUEST.test(stripped)) {
    const rest = stripped.replace(POLITE_REQUEST, "").replace(/^[\s,:]+/, "");
    if (startsWith(CHANGE_IMPERATIVE).test(rest)) return "change";
    const kind = classifySentence(rest);
    return kind === "neutral" ? "change" : kind;
  }
  if (questionForm) {
    // "How do I fix …?" asks for an explanation; "Is the bug fixed? Fix it" is handled per sentence.
    if (!HOW_TO.test(stripped) && startsWith(CHANGE_IMPERATIVE).test(stripped)) return "change";
    return "question";
  }
  if (startsWith(READ_IMPERATIVE).test(stripped)) return "question";
  if (startsWith(INVESTIGATE_IMPERATIVE).test(stripped)) return DEFECT.test(stripped) ? "defect" : "execution";
  if (startsWith(EXECUTION_IMPERATIVE).test(stripped)) return "execution";
  if (startsWith(CHANGE_IMPERATIVE).test(stripped)) return "change";
  return DEFECT.test(stripped) ? "defect" : "neutral";
}

function delegatedRequest(sentence: string): SentenceKind | undefined {
  const head = /^\s*(ask|have|let|get|tell)\s+(?:(?:a|an|the|some|one)\s+)?([\w-]+)(?:\s+agent)?\s+(?:to\s+)?(.+)$/i.exec(sentence);
  if (head === null || /^(me|us|it)$/i.test(head[2])) return undefined;
  const rest = head[3];
  if (DELEGATED_QUESTION.test(rest)) return "question";
  const kind = classifySentence(rest);
  return kind === "neutral" ? "change" : kind;
}

export function classifyTask(task: string): TaskIntent {
  if (task.trim() === "" || GREETING.test(task)) return "conversation";
  const kinds = sentences(task).map(classifySentence);
  if (kinds.some((kind) => kind === "change" || kind === "defect")) return "change";
  if (kinds.includes("execution")) return "execution";
  // Neutral sentences beside a question are context ("I use Node 20. Where is X defined?");
  // a task of neutral sentences only is not a question and gets the strict default.
  if (kinds.includes("question")) return "question";
  return "change";
}
