import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Msg, NatsConnection, Subscription } from "nats";
import { startTestBus, type TestBus } from "../../tests/helpers/bus.js";
import { createWorkspaceRouter, encodeJson, rootedSubject, workspaceRootsMetadataKey } from "../src/index.js";

/**
 * The router's discovery (`$SRV.INFO.aide-tools`) kept off the request path: a list past its
 * time still answers while a new discovery runs; a workspace the list lacks, or a forgotten
 * list, waits for a new one. The instance is played by a bus participant that answers
 * `$SRV.INFO.aide-tools` as a tools service does, when the test lets it.
 */
describe("workspace router discovery (real nats-server)", () => {
  let bus: TestBus;
  let tester: NatsConnection;
  let orchestrator: NatsConnection;
  let subscription: Subscription;
  /** Discovery requests seen and not yet answered. */
  const asked: Msg[] = [];
  const askedListeners = new Set<() => void>();
  let answerAt: string[] | undefined = ["/srv/a"];
  const answer = (message: Msg, roots: string[]) => message.respond(encodeJson({ name: "aide-tools", id: "instance-1", metadata: { [workspaceRootsMetadataKey]: JSON.stringify(roots) } }));
  /** Resolves once `count` discovery requests are waiting for an answer. */
  const waitingDiscoveries = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (asked.length < count) return;
        askedListeners.delete(check);
        resolve();
      };
      askedListeners.add(check);
      check();
    });

  beforeAll(async () => {
    bus = await startTestBus();
    tester = await bus.connectAs("tester");
    orchestrator = await bus.connectAs("orchestrator");
    subscription = tester.subscribe("$SRV.INFO.aide-tools", {
      callback: (_error, message) => {
        if (answerAt !== undefined) return answer(message, answerAt);
        asked.push(message);
        for (const listener of [...askedListeners]) listener();
      },
    });
    await tester.flush();
  });
  afterAll(async () => {
    subscription?.unsubscribe();
    await bus?.stop();
  });

  it("answers from the expired list while a new discovery is still unanswered, and uses the new list once it arrives", async () => {
    let clock = 1_000_000;
    const router = createWorkspaceRouter({ connection: orchestrator, service: "aide-tools", ttlMs: 5_000, discoveryMs: 20_000, now: () => clock });
    answerAt = ["/srv/a"];
    expect(await router.subjectFor("agent.tools.exec", "/srv/a/ws")).toBe(rootedSubject("agent.tools.exec", "/srv/a"));

    // Past the list's time, and the instance holds its answer to the next discovery.
    answerAt = undefined;
    clock += 6_000;
    // The code before waited here for the discovery (up to discoveryMs, 20 s, and then routed plainly).
    expect(await router.subjectFor("agent.tools.exec", "/srv/a/ws")).toBe(rootedSubject("agent.tools.exec", "/srv/a"));
    await waitingDiscoveries(1);
    expect(asked).toHaveLength(1);
    // Another call meanwhile joins the same discovery instead of asking again.
    expect(await router.subjectFor("agent.tools.exec", "/srv/a/ws")).toBe(rootedSubject("agent.tools.exec", "/srv/a"));

    // The instance now serves /srv/b as well; a workspace under /srv/b waits for that answer (the
    // old list does not have it) and is routed by it.
    const routedB = router.subjectFor("agent.tools.exec", "/srv/b/ws");
    answer(asked.shift()!, ["/srv/a", "/srv/b"]);
    expect(await routedB).toBe(rootedSubject("agent.tools.exec", "/srv/b"));
    expect(asked).toHaveLength(0);
  });

  it("looks again before refusing a workspace the list lacks, and a forgotten list is not served", async () => {
    let clock = 2_000_000;
    const router = createWorkspaceRouter({ connection: orchestrator, service: "aide-tools", ttlMs: 5_000, discoveryMs: 20_000, now: () => clock });
    answerAt = ["/srv/a"];
    expect(await router.subjectFor("agent.tools.exec", "/srv/a/ws")).toBe(rootedSubject("agent.tools.exec", "/srv/a"));
    clock += 300;
    answerAt = ["/srv/c"];
    // A miss asks again at once (fresh list or not) and is routed by the new answer.
    expect(await router.subjectFor("agent.tools.exec", "/srv/c/ws")).toBe(rootedSubject("agent.tools.exec", "/srv/c"));

    // An instance went away (the caller saw UNAVAILABLE): the old list is dropped, not served
    // while the new discovery runs.
    answerAt = ["/srv/d"];
    router.forget();
    await expect(router.subjectFor("agent.tools.exec", "/srv/c/ws")).rejects.toMatchObject({ code: "WORKSPACE_NOT_SERVED", message: expect.stringContaining("/srv/d") });
  });
});
