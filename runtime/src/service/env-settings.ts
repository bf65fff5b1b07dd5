import { z } from "zod";

/** Unset or empty is undefined; anything else becomes a number for the schema to judge. */
const fromEnv = (value: unknown) => (value === undefined || value === "" ? undefined : Number(value));

/**
 * A positive integer setting from the environment: unset or empty takes `fallback`; anything else
 * must parse, so a typo is refused rather than defaulted.
 */
export const positiveIntegerSetting = (fallback: number) => z.preprocess(fromEnv, z.number().int().positive().default(fallback));

/** The same without a default: unset or empty stays undefined. */
export const optionalPositiveIntegerSetting = () => z.preprocess(fromEnv, z.number().int().positive().optional());
