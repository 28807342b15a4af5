/** Who accepts or reverts: `--by`, else `$TAPSHOT_REVIEWER`, else git's `user.name <user.email>`, else unknown. */
import { execFileSync } from "node:child_process";

function gitConfig(name: string, cwd: string): string | undefined {
  try {
    return (
      execFileSync("git", ["config", "--get", name], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
        .trim()
        .replace(/\s+/g, " ") || undefined
    );
  } catch {
    return undefined; // no git, or not set
  }
}

/** The reviewer's name for records, or `null` when nothing says who it is. */
export function reviewerName(by: string | undefined, env = process.env, cwd = process.cwd()): string | null {
  const given = (by ?? env.TAPSHOT_REVIEWER)?.trim();
  if (given) return given;
  const name = gitConfig("user.name", cwd);
  const email = gitConfig("user.email", cwd);
  if (name && email) return `${name} <${email}>`;
  return name ?? email ?? null;
}
