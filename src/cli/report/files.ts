/**
 * Copies the images a report shows into `<out>/files/`, so the report folder opens from
 * disk (and can be kept as a CI artifact) without the store or the results beside it.
 * Only files inside a given folder are copied: run records name their artifacts, and a
 * report must not carry other files of the machine it was made on (docs/reviewing.md).
 * Stored images come from the store the report reads, a folder or a bucket.
 */
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { FileStore } from "../../core/store/file-store.js";
import type { Store } from "../../core/store/store.js";

/** Marks a files folder as the report's own, so regenerating may empty it. */
const MARKER = ".tapshot-report";

export class ReportFiles {
  readonly dir: string;
  private readonly copied = new Map<string, string>();

  private constructor(readonly outDir: string) {
    this.dir = path.join(outDir, "files");
  }

  /** Prepare `<out>/files/`, removing what an earlier report left there (only if that report made it). */
  static async create(outDir: string): Promise<ReportFiles> {
    const files = new ReportFiles(path.resolve(outDir));
    if (existsSync(files.dir)) {
      if (!existsSync(path.join(files.dir, MARKER))) {
        throw new Error(
          `${files.dir} exists and was not made by tapshot report; choose another --out folder or remove it.`,
        );
      }
      await fs.rm(files.dir, { recursive: true, force: true });
    }
    await fs.mkdir(files.dir, { recursive: true });
    await fs.writeFile(path.join(files.dir, MARKER), "Made by tapshot report; regenerated on every run.\n");
    return files;
  }

  /**
   * Copy `source` to `files/<target>` and return its URL relative to the report page, or
   * `undefined` when it is not a file inside `folder` (real paths: a symlink or `..` out of
   * the folder is outside).
   */
  async add(source: string, target: string, folder: string): Promise<string | undefined> {
    const real = await realFileIn(source, folder);
    if (!real) return undefined;
    return this.place(real, target, (dest) => fs.copyFile(real, dest));
  }

  /**
   * Copy the image stored at `key` to `files/<target>`: from a storage folder only a file inside it
   * (as {@link add}), from another store (a bucket) through the store's own reads.
   */
  async addStored(store: Store, key: string, target: string): Promise<string | undefined> {
    if (store instanceof FileStore) return this.add(path.join(store.root, ...key.split("/")), target, store.root);
    const bytes = await store.read(key);
    if (!bytes) return undefined;
    return this.place(`${store.location}/${key}`, target, (dest) => fs.writeFile(dest, bytes));
  }

  /** Write one file under `files/<target>` once per `identity`; `undefined` when its source vanished meanwhile. */
  private async place(
    identity: string,
    target: string,
    write: (dest: string) => Promise<void>,
  ): Promise<string | undefined> {
    const known = this.copied.get(identity);
    if (known) return known;
    const dest = path.join(this.dir, ...target.split("/"));
    try {
      await fs.mkdir(path.dirname(dest), { recursive: true });
      await write(dest);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    const url = ["files", ...target.split("/")].map(encodeURIComponent).join("/");
    this.copied.set(identity, url);
    return url;
  }
}

/** The real path of `file` when it is a regular file inside `folder`'s real path, else `undefined`. */
export async function realFileIn(file: string, folder: string): Promise<string | undefined> {
  try {
    const [root, real] = await Promise.all([fs.realpath(folder), fs.realpath(file)]);
    const inside = path.relative(root, real);
    if (!inside || inside === ".." || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside)) return undefined;
    return (await fs.stat(real)).isFile() ? real : undefined;
  } catch {
    // Missing, a broken link, or no path at all (a run record may name anything): nothing to copy.
    return undefined;
  }
}
