/**
 * The review page's "Failures in the last run" (failures.ts): a baseline's expected / actual / diff
 * with the slider and "Accept as new baseline"; a tap's screen with the stored crop outlined and the
 * two crops, with "Forget (learn again next run)". Failures of one name whose change has the same
 * fingerprint (fingerprint.ts) on several devices form one group, accepted with one click.
 */
import { baselineBoxes, compareFigures, fullSize, pct } from "../report/compare.js";
import { overlay } from "../report/view.js";
import { esc } from "../report/escape.js";
import type { ReviewFailure } from "./failures.js";
import type { UnreadableFailure } from "./accept-failed.js";

/** What the page needs of a failure: the failure, and the URL of its image `label`. */
export type FailureImageUrl = (failure: ReviewFailure, label: string) => string;

/** The stored tap's box and point over the run's screenshot of the whole screen (a hollow ring: the element shows). */
function storedPlace({ tap }: ReviewFailure): string {
  if (!tap) return "";
  const { screen } = tap.device;
  const box = overlay(tap.box, screen);
  const point = overlay({ ...tap.point, width: 0, height: 0 }, screen);
  return (
    `<span class="tap-box" style="${pct(box)}" data-testid="stored-box"></span>` +
    `<span class="point" style="left:${point.left}%;top:${point.top}%" data-testid="tap-point" title="stored point (${tap.point.x}, ${tap.point.y})"></span>`
  );
}

function failureCard(failure: ReviewFailure, url: FailureImageUrl): string {
  const { entry, kind } = failure;
  const subject = kind === "tap" ? `tap "${entry.prompt}"` : `screenshot "${entry.name}"`;
  const has = (label: string) => failure.images.includes(label);
  const image = (label: string) => ({ url: url(failure, label) });
  let figures: string;
  let button: string;
  if (kind === "baseline") {
    const boxes = failure.baseline ? baselineBoxes(failure.baseline) : "";
    figures = compareFigures({
      subject,
      ...(has("expected") ? { expected: { ...image("expected"), overlays: boxes } } : {}),
      ...(has("actual") ? { actual: { ...image("actual"), overlays: boxes } } : {}),
      ...(has("diff") ? { diff: image("diff") } : {}),
    });
    button = `<button class="accept" data-testid="accept-failure" data-action="accept">Accept as new baseline</button>`;
  } else {
    const shown = (["screenshot", "expected-crop", "actual-crop"] as const).filter(has);
    figures = `<div class="figures">${shown
      .map(
        (label) =>
          `<figure class="${label === "screenshot" ? "screen" : "crop"}" data-testid="${label}">${fullSize(url(failure, label), `${subject}: ${label}`, label === "screenshot" ? storedPlace(failure) : "")}<figcaption>${esc(label === "screenshot" ? "the screen: the stored crop outlined, its box dashed, its point ringed" : label)}</figcaption></figure>`,
      )
      .join("")}</div>`;
    button = `<button class="revert" data-testid="forget-failure" data-action="forget">Forget (learn again next run)</button>`;
  }
  return `<article class="card value failure" tabindex="-1" data-testid="failure" data-id="${esc(failure.id)}" data-key="${esc(entry.key)}" data-kind="${kind}" data-device="${esc(entry.device)}"${failure.fingerprint ? ` data-fingerprint="${esc(failure.fingerprint)}"` : ""}>
  <h4>${esc(subject)} · <span class="mono">${esc(entry.device)}</span> · <span class="badge failed">failed</span> <span class="state" data-testid="state"></span></h4>
  <div class="meta">run <span class="mono">${esc(failure.run.id)}</span> · ${esc(entry.at)}${failure.fingerprint ? ` · change <span class="mono">${esc(failure.fingerprint)}</span>` : ""}</div>
  ${entry.detail ? `<pre data-testid="detail">${esc(entry.detail)}</pre>` : ""}
  ${failure.unreadable ? `<p class="empty-note" data-testid="unreadable">${esc(failure.unreadable)}</p>` : ""}
  ${failure.baseline ? `<div class="meta" data-testid="prompt">judged against: ${esc(failure.baseline.prompt)}</div>` : ""}
  ${figures}
  <div class="figures">${button}</div>
</article>`;
}

/** Failures grouped by kind, name or prompt, and change fingerprint (a tap's group is its prompt). */
function groupsOf(failures: ReviewFailure[]): ReviewFailure[][] {
  const groups = new Map<string, ReviewFailure[]>();
  for (const f of failures) {
    const id = [f.kind, f.entry.name ?? f.entry.prompt, f.fingerprint ?? f.id].join("\u0000");
    groups.set(id, [...(groups.get(id) ?? []), f]);
  }
  return [...groups.values()];
}

/** Failures whose calls.jsonl line cannot be read, listed with why. */
function unreadableList(unreadable: UnreadableFailure[]): string {
  if (!unreadable.length) return "";
  const items = unreadable.map((u) => `<li data-testid="unreadable-failure">${esc(u.why)}</li>`).join("");
  return `<section class="group" data-testid="unreadable-failures"><h3>Failures that cannot be read</h3><ul>${items}</ul></section>`;
}

/** The failures section, or nothing when the last run had none. */
export function failuresSection(
  failures: ReviewFailure[],
  unreadable: UnreadableFailure[],
  url: FailureImageUrl,
): string {
  if (!failures.length && !unreadable.length) return "";
  const groups = groupsOf(failures).map((members) => {
    const { kind, entry, fingerprint } = members[0]!;
    const n = members.length;
    const title = kind === "tap" ? `tap "${entry.prompt}"` : `baseline "${entry.name}"`;
    const same =
      kind === "baseline" && fingerprint && n > 1 ? ` <span class="meta">the same change on ${n} devices</span>` : "";
    const all =
      n > 1
        ? kind === "baseline"
          ? `<button class="accept" data-testid="accept-failure-group" data-action="accept">Accept all ${n} as new baselines</button>`
          : `<button class="revert" data-testid="forget-failure-group" data-action="forget">Forget all ${n}</button>`
        : "";
    return `<section class="group" data-testid="failure-group" data-kind="${kind}"${fingerprint ? ` data-fingerprint="${esc(fingerprint)}"` : ""}>
<h3>${esc(title)}${same} ${all}</h3>
<div class="cards">${members.map((f) => failureCard(f, url)).join("\n")}</div>
</section>`;
  });
  return `<section id="failures" data-testid="failures"><h2>Failures in the last run</h2>${groups.join("\n")}${unreadableList(unreadable)}</section>`;
}
