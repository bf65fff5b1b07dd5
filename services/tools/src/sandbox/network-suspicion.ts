/** Words and shapes that suggest a command reaches the network (the orchestrator decides consent). */
const patterns: RegExp[] = [
  /\b(curl|wget|aria2c|nc|ncat|netcat|socat|telnet|ftp|sftp|ssh|scp|rsync|ping|dig|nslookup|host)\b/,
  /\bgit\s+(clone|fetch|pull|push|ls-remote|submodule\s+update)\b/,
  /\b(npm|pnpm|yarn|bun)\s+(install|i|ci|add|update|upgrade|publish|dlx|create)\b/,
  /\bnpx\b/,
  /\b(pip3?|pipx|uv|poetry|conda)\s+(install|download|add|sync)\b/,
  /\b(apt|apt-get|dnf|yum|apk|brew)\s+(install|update|upgrade)\b/,
  /\b(cargo\s+(install|fetch|update|publish)|go\s+(get|install|mod\s+download))\b/,
  /\bdocker\s+(pull|push|login|run)\b/,
  /[a-z]+:\/\/[^\s]+/i,
  /\/dev\/(tcp|udp)\//,
  /\b(socket|urllib|requests\.|http\.client|fetch\(|XMLHttpRequest|WebSocket)\b/,
  /\bInvoke-WebRequest\b|\biwr\b/i,
];

export function suspectsNetwork(command: string): boolean {
  return patterns.some((pattern) => pattern.test(command));
}
