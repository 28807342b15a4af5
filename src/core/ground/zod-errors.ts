/** How every zod failure reads in tapshot's messages: configuration, records, model answers. */
import type { z } from "zod";

/** Describe a zod error as `path: message; ...` for error messages. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}
