import { describe, expect, it } from "vitest";
import { readSettings } from "./service-options.js";

describe("the tools service's command settings", () => {
  it("AIDE_TOOLS_SPAWN_HELPER: on unless set off; anything else is refused, not replaced by the default", () => {
    expect(readSettings({}, []).commands.spawnHelper).toBe(true);
    expect(readSettings({ AIDE_TOOLS_SPAWN_HELPER: "" }, []).commands.spawnHelper).toBe(true);
    expect(readSettings({ AIDE_TOOLS_SPAWN_HELPER: "on" }, []).commands.spawnHelper).toBe(true);
    expect(readSettings({ AIDE_TOOLS_SPAWN_HELPER: "off" }, []).commands.spawnHelper).toBe(false);
    expect(() => readSettings({ AIDE_TOOLS_SPAWN_HELPER: "no" }, [])).toThrow(/AIDE_TOOLS_SPAWN_HELPER/);
  });
  it("AIDE_TOOLS_PREPARED_JAILS: 0 turns them off; a negative count is refused", () => {
    expect(readSettings({}, []).commands.preparedJails).toBe(4);
    expect(readSettings({ AIDE_TOOLS_PREPARED_JAILS: "0" }, []).commands.preparedJails).toBe(0);
    expect(() => readSettings({ AIDE_TOOLS_PREPARED_JAILS: "-1" }, [])).toThrow(/AIDE_TOOLS_PREPARED_JAILS/);
  });
});
