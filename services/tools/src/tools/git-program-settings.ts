/**
 * Git settings that stop a repository's own (or an included) config from naming programs for git
 * to run: fsmonitor, hooks, pagers, external diff, editors, ssh, credential helpers, signing
 * programs. Used by git_status/git_diff as `-c` arguments and by run_command/process_start as
 * `GIT_CONFIG_*` environment overrides (command scope: they win over every config file).
 */
export function neutralGitSettings(): string[] {
  return [
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "pager.status=false",
    "pager.diff=false",
    "pager.log=false",
    "pager.show=false",
    "core.sshCommand=false",
    "core.askPass=",
    "credential.helper=",
    "core.editor=false",
    "sequence.editor=false",
    "core.untrackedCache=false",
    "gpg.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
    "gpg.ssh.defaultKeyCommand=",
    "interactive.diffFilter=",
    "protocol.ext.allow=never",
  ];
}

/**
 * What a blanked external diff runs instead: the plain unified diff of the two files git hands an
 * external diff (`path old-file old-hex old-mode new-file new-hex new-mode`), labelled with the
 * path. An empty value would make git try to run "" and fail, breaking an ordinary `git diff`.
 */
export const plainExternalDiff = `f() { printf 'diff --git a/%s b/%s\\n' "$1" "$1"; diff -u --label "a/$1" --label "b/$1" "$2" "$5"; [ $? -le 1 ]; }; f`;

/**
 * The per-name settings that run a program, blanked for every name the repository's config
 * defines: filter drivers (named by `.gitattributes`), diff textconv/command, merge drivers,
 * aliases (a `!` alias runs a shell; any alias can smuggle `-c`), diff/merge tools, trailer
 * commands, archive commands, url-scoped credential helpers, a remote's upload/receive-pack and a
 * submodule's `!` update command.
 */
export function programSettingsFor(configNames: Iterable<string>): string[] {
  const settings = new Set<string>();
  for (const raw of configNames) {
    const name = raw.trim();
    if (name === "") continue;
    const lower = name.toLowerCase();
    const last = lower.lastIndexOf(".");
    const first = lower.indexOf(".");
    if (lower.startsWith("alias.")) {
      settings.add(`${name}=`);
      continue;
    }
    if (lower === "diff.external") settings.add(`diff.external=${plainExternalDiff}`);
    if (first < 0 || last <= first) continue;
    const section = lower.slice(0, first);
    const key = lower.slice(last + 1);
    const subsection = name.slice(first + 1, last);
    const full = (setting: string) => `${section}.${subsection}.${setting}`;
    if (section === "filter") {
      for (const setting of ["clean=cat", "smudge=cat", "process=", "required=false"]) settings.add(full(setting));
    } else if (section === "diff" && (key === "textconv" || key === "command")) {
      settings.add(full("textconv=cat"));
      settings.add(full(`command=${plainExternalDiff}`));
      settings.add(full("cachetextconv=false"));
    } else if (section === "merge" && key === "driver") settings.add(full("driver=false"));
    else if ((section === "difftool" || section === "mergetool") && (key === "cmd" || key === "path")) settings.add(full(`${key}=false`));
    else if (section === "trailer" && (key === "command" || key === "cmd")) settings.add(full(`${key}=`));
    else if (section === "tar" && key === "command") settings.add(full("command=false"));
    else if (section === "credential" && key === "helper") settings.add(full("helper="));
    else if (section === "remote" && key === "uploadpack") settings.add(full("uploadpack=git-upload-pack"));
    else if (section === "remote" && key === "receivepack") settings.add(full("receivepack=git-receive-pack"));
    else if (section === "submodule" && key === "update") settings.add(full("update=checkout"));
  }
  return [...settings];
}

/** `key=value` settings as git's command-scope environment (GIT_CONFIG_COUNT, _KEY_n, _VALUE_n). */
export function gitConfigEnvironment(settings: readonly string[]): Record<string, string> {
  const environment: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach((setting, index) => {
    const equals = setting.indexOf("=");
    environment[`GIT_CONFIG_KEY_${index}`] = setting.slice(0, equals);
    environment[`GIT_CONFIG_VALUE_${index}`] = setting.slice(equals + 1);
  });
  return environment;
}
