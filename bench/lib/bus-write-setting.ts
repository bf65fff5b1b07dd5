/** `AIDE_BUS_COALESCE_WRITES` as set for the bench, passed on to the services it starts (their bus writes per microtask or per turn). */
export const busWriteSetting: Record<string, string> = process.env.AIDE_BUS_COALESCE_WRITES !== undefined ? { AIDE_BUS_COALESCE_WRITES: process.env.AIDE_BUS_COALESCE_WRITES } : {};
