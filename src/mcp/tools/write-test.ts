/* `write_test`: the session's steps as a test file inside the server's working folder. */
import { link, mkdir, realpath, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { z } from "zod";
import { InputError } from "../../errors.js";
import { testFileSource } from "../test-file.js";
import { answering, jsonAnswer } from "./answer.js";
import type { ToolContext } from "./context.js";

export const writeTestTool = {
  name: "write_test",
  config: {
    description:
      "Write the session's steps, in order, as a test that opens its own session and repeats them through " +
      "tapshot's API: run it with node --test <path> from the project's folder; in CI (TAPSHOT_MODE=replay) it " +
      "makes no model call. The path is inside the server's working folder and ends in .mjs or .test.mjs.",
    inputSchema: {
      path: z.string().describe('e.g. "tests/checkout.test.mjs"'),
      overwrite: z.boolean().optional().describe("Replace a file that is already there (default: refuse)"),
    },
  },
  handler: (context: ToolContext) => (input: { path: string; overwrite?: boolean }) =>
    answering(async () => {
      const { session, settings } = context;
      const file = await checkedPath(input.path, settings.cwd);
      const started = session.startArguments();
      const demoModule = settings.demoModule ? resolve(settings.cwd, settings.demoModule) : undefined;
      const source = testFileSource({
        started,
        steps: session.steps,
        file,
        cwd: settings.cwd,
        ...(demoModule ? { demoModule } : {}),
      });
      await mkdir(dirname(file), { recursive: true });
      await writeWhole(file, source, input.overwrite ?? false);
      return jsonAnswer({
        written: relative(settings.cwd, file),
        steps: session.steps.length,
        run: `node --test ${relative(settings.cwd, file)}`,
      });
    }),
};

/**
 * The absolute path of `path` when it is an .mjs file inside `cwd`, also once symbolic links are followed
 * (a link inside the folder that points out of it is refused); an InputError otherwise.
 */
async function checkedPath(path: string, cwd: string): Promise<string> {
  const file = resolve(cwd, path);
  const root = await realpath(cwd);
  const outside = (target: string, base: string) => {
    const inside = relative(base, target);
    return !inside || inside.startsWith("..") || isAbsolute(inside);
  };
  if (outside(file, cwd) || outside(await realpathOfNearest(file), root)) {
    throw new InputError(
      `write_test writes only inside the server's working folder (${cwd}); ${JSON.stringify(path)} is outside it. ` +
        'Give a path such as "tests/checkout.test.mjs".',
    );
  }
  if (!file.endsWith(".mjs")) {
    throw new InputError(
      `write_test writes an ES module for node --test: end the path in .mjs (e.g. "tests/checkout.test.mjs"); got ${JSON.stringify(path)}.`,
    );
  }
  return file;
}

/** The real path of `file`, or of its nearest existing folder with the rest appended. */
async function realpathOfNearest(file: string): Promise<string> {
  try {
    return await realpath(file);
  } catch {
    const parent = dirname(file);
    if (parent === file) return file;
    return join(await realpathOfNearest(parent), basename(file));
  }
}

/**
 * Write the whole file or nothing: into a temporary file beside it, then moved into place (replacing the
 * old one only with `overwrite`; otherwise linked, which fails when the name is taken).
 */
async function writeWhole(file: string, source: string, overwrite: boolean): Promise<void> {
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temporary, source, { flag: "wx" });
  try {
    if (overwrite) await rename(temporary, file);
    else await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new InputError(
        `write_test did not replace ${basename(file)}, which is already there: pass overwrite: true, or another path.`,
      );
    }
    throw error;
  } finally {
    await rm(temporary, { force: true });
  }
}
