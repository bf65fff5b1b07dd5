import { execFileSync } from "node:child_process";

export interface SandboxSupport {
  available: boolean;
  detail: string;
}

/** Whether bubblewrap exists and may create the namespaces the profiles use. */
export function checkSandboxSupport(): SandboxSupport {
  try {
    execFileSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--cap-drop", "ALL", "true"], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 5000,
    });
    return { available: true, detail: "bubblewrap works" };
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? "").trim();
    const missing = (error as { code?: string }).code === "ENOENT";
    return {
      available: false,
      detail: missing ? "bubblewrap is not installed (apt-get install bubblewrap)" : `bubblewrap cannot create namespaces here: ${stderr || (error as Error).message}`,
    };
  }
}
