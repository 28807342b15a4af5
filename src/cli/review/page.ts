/**
 * The review page: the last run's failures (failure-cards.ts), then pending values grouped by name
 * or prompt across devices, each with its images (a baseline's previous / new / diff side by side
 * with a slider, its varying boxes and prompt masks drawn; a tap's old and new crop and where it is
 * on the screen), the model's reason, and Accept / Revert per value, per group and per group of the
 * same change (fingerprint.ts). Text is escaped as in the report (esc).
 */
import { baselineBoxes, COMPARE_SCRIPT, COMPARE_STYLE, compareFigures, fullSize } from "../report/compare.js";
import { esc } from "../report/escape.js";
import { STYLE } from "../report/style.js";
import { deviceOf } from "../model.js";
import { TAP_SCREEN_STYLE, tapOnScreen } from "../report/tap-screen.js";
import { pointIn, type Overlay } from "../report/view.js";
import type { BaselineRecord } from "../../core/store/baseline-record.js";
import type { TapRecord } from "../../core/store/tap-record.js";
import type { ActRecord } from "../../core/store/act-record.js";
import { failuresSection, type FailureImageUrl } from "./failure-cards.js";
import type { ReviewFailure } from "./failures.js";
import type { UnreadableFailure } from "./accept-failed.js";
import type { PendingValue } from "./pending.js";
import { REVIEW_SCRIPT } from "./page-script.js";

const REVIEW_STYLE = `
.group { margin: 20px 0; }
.group h2, .group h3 { display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; }
.value { width: 100%; outline: none; }
.value.current { box-shadow: 0 0 0 3px var(--accent); }
.value.done { opacity: 0.55; }
.value .state { font-weight: 600; }
.screen img, .screen svg { width: 180px; }
button { font: inherit; border-radius: 6px; border: 1px solid var(--line); background: #fff; padding: 4px 12px; cursor: pointer; }
button.accept { border-color: var(--ok); color: var(--ok); }
button.revert { border-color: var(--fail); color: var(--fail); }
#changes li { font-family: ui-monospace, monospace; font-size: 12px; }
kbd { border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; background: #fff; }
`;

function image(url: string, alt: string, point?: Overlay): string {
  const mark = point
    ? `<span class="point" style="left:${point.left}%;top:${point.top}%" data-testid="tap-point"></span>`
    : "";
  return fullSize(url, alt, mark);
}

function figure(label: string, body: string, kind: string): string {
  return `<figure class="${kind === "baseline" ? "screen" : "crop"}" data-testid="${esc(label)}">${body}<figcaption>${esc(label)}</figcaption></figure>`;
}

/** A scroll tap's crop is of the screen its swipes reached: say how many, and the swipe. */
function swipesNote({ direction, swipes, swipe }: NonNullable<TapRecord["scroll"]>): string {
  const { from, to, durationMs } = swipe;
  return `<div class="meta" data-testid="swipes">crop of the screen after ${swipes} swipe${swipes === 1 ? "" : "s"} ${esc(direction)} from the start (each from (${from.x}, ${from.y}) to (${to.x}, ${to.y}) over ${durationMs} ms)</div>`;
}

function tapFigures(r: TapRecord, change: PendingValue["change"], src: (file: string) => string, subject: string) {
  const figures: string[] = [];
  if (change === "heal" && r.previous) {
    figures.push(
      figure("old", image(src("previous.png"), "old crop", pointIn(r.previous.point, r.previous.crop)), "tap"),
    );
  }
  figures.push(figure("new", image(src("png"), "new crop", pointIn(r.point, r.crop)), "tap"));
  figures.push(tapOnScreen(r, src("png"), subject, change === "heal" ? r.previous : undefined));
  if (r.scroll) figures.push(swipesNote(r.scroll));
  return `<div class="figures">${figures.join("")}</div>`;
}

function baselineFigures(
  r: BaselineRecord,
  change: PendingValue["change"],
  src: (file: string) => string,
  subject: string,
) {
  const boxes = baselineBoxes(r);
  if (change !== "heal")
    return `<div class="figures">${figure("new", image(src("png"), "new baseline").replace("</a>", `${boxes}</a>`), "baseline")}</div>`;
  return compareFigures({
    subject,
    expected: { url: src("previous.png") },
    actual: { url: src("png"), overlays: boxes },
    diff: { url: src("diff.png") },
    labels: { expected: "previous", actual: "new", diff: "diff" },
  });
}

/** An act's crops, one per step with a control, stacked on its sheet: shown as one image. */
function actFigures(r: ActRecord, src: (file: string) => string): string {
  return `<div class="figures">${figure("steps", image(src("png"), `the ${r.steps.length} steps' controls`), "tap")}</div>`;
}

function valueCard({ entry, change }: PendingValue, src: (file: string) => string, fingerprint?: string): string {
  const r = entry.record;
  const figures =
    "crop" in r
      ? tapFigures(r, change, src, entry.subject)
      : r.kind === "act"
        ? actFigures(r, src)
        : r.kind === "judgment"
          ? `<div class="figures">${figure("judged", image(src("png"), "what was judged"), r.shot.width === r.device.screen.width ? "baseline" : "tap")}</div>`
          : baselineFigures(r, change, src, entry.subject);
  const what = change === "heal" ? "healed" : "new";
  return `<article class="card value ${change === "heal" ? "heal" : ""}" tabindex="-1" data-testid="value" data-key="${esc(entry.key)}" data-seen="${esc(r.imageSha256)}" data-device="${esc(entry.device)}"${fingerprint ? ` data-fingerprint="${esc(fingerprint)}"` : ""}>
  <h4>${esc(entry.platform)} · <span class="mono">${esc(deviceOf(entry))}</span> · <span class="badge ${what === "new" ? "stored" : "healed"}">${what}</span> <span class="state" data-testid="state"></span></h4>
  ${figures}
  ${r.kind === "act" ? `<div class="meta" data-testid="prompt">goal: ${esc(r.goal)}${r.valueNames.length ? ` · values ${esc(r.valueNames.join(", "))}` : ""}</div><ol class="meta" data-testid="steps">${r.steps.map((s) => `<li>${esc(`${s.action}${s.control ? ` "${s.control.label}"` : ""}${s.value ? ` with value ${s.value}` : ""}${s.option ? ` "${s.option}"` : ""}${s.key ? ` ${s.key}` : ""}${s.checked !== undefined ? (s.checked ? " on" : " off") : ""}${s.direction ? ` ${s.direction}` : ""}`)}</li>`).join("")}</ol>` : r.kind === "judgment" ? `<div class="meta" data-testid="prompt">statement: ${esc(r.statement)} · P(true) ${r.probability} · evidence <span class="mono">${esc(r.evidenceHash.slice(0, 12))}</span></div><pre class="meta" data-testid="evidence">${esc(r.evidence)}</pre>` : `<div class="meta" data-testid="prompt">${r.kind === "baseline" ? "judged against" : r.kind === "locator" ? "locator" : "prompt"}: ${esc(r.prompt)}${r.kind === "tap" && r.verify ? ` · verify: ${esc(r.verify)}` : ""}</div>`}
  ${r.kind === "baseline" && (r.varying.length || r.promptMasks?.length) ? `<div class="meta" data-testid="boxes">${r.varying.length} varying box${r.varying.length === 1 ? "" : "es"} (blue) ignored${r.promptMasks?.length ? `; masked by prompt (orange): ${esc(r.promptMasks.map((m) => m.prompt).join(", "))}` : ""}</div>` : ""}
  ${r.kind === "baseline" && r.changed ? `<div class="meta" data-testid="what-changed">what changed: ${esc(r.changed)}</div>` : ""}
  ${fingerprint ? `<div class="meta">change <span class="mono">${esc(fingerprint)}</span></div>` : ""}
  <div class="meta" data-testid="reason">the model (<span class="mono">${esc(r.model)}</span>): ${esc(r.reason)}</div>
  <div class="figures"><button class="accept" data-testid="accept">Accept</button><button class="revert" data-testid="revert">Revert</button></div>
</article>`;
}

/** Pending values grouped by kind and name or prompt: baselines first (a redesign shows there), then taps. */
function groupsOf(values: PendingValue[]): PendingValue[][] {
  const groups = new Map<string, PendingValue[]>();
  const ordered = [...values].sort((a, b) =>
    a.entry.kind === b.entry.kind ? 0 : a.entry.kind === "baseline" ? -1 : 1,
  );
  for (const v of ordered) {
    const id = `${v.entry.kind}\u0000${v.entry.subject}`;
    groups.set(id, [...(groups.get(id) ?? []), v]);
  }
  return [...groups.values()];
}

/** What the page shows, and how its images and script are reached. */
export interface ReviewPageParts {
  values: PendingValue[];
  /** The last run's failures (none without a results folder). */
  failures?: ReviewFailure[];
  /** Lines of the last run's calls.jsonl that cannot be read and may be failures, each saying why (accept-failed.ts). */
  unreadableFailures?: UnreadableFailure[];
  /** Fingerprints of the pending heals' changes, by store key. */
  fingerprints?: Map<string, string> | undefined;
  /** Why the pending values could not be read (the store is down), when they could not. */
  pendingError?: string;
  storage: string;
  token: string;
  /** The CSP nonce of the page's one script. */
  nonce: string;
  /** The URL of a pending value's image (`png`, `previous.png`, `diff.png`). */
  imageUrl(key: string, file: string): string;
  failureImageUrl?: FailureImageUrl;
}

/** Buttons for each change several members of a group share, when not all of them do. */
function sameChangeButtons(members: PendingValue[], fingerprints: Map<string, string>): string {
  const counts = new Map<string, number>();
  for (const { entry } of members) {
    const f = fingerprints.get(entry.key);
    if (f) counts.set(f, (counts.get(f) ?? 0) + 1);
  }
  return [...counts]
    .filter(([, n]) => n > 1)
    .map(([f, n]) =>
      n === members.length
        ? `<span class="meta" data-testid="same-change">the same change on all ${n}</span>`
        : `<button class="accept" data-testid="accept-same" data-fingerprint="${esc(f)}">Accept the ${n} with change ${esc(f)}</button>`,
    )
    .join("");
}

/** The page. */
export function renderReviewPage(parts: ReviewPageParts): string {
  const { values, storage, token, nonce } = parts;
  const fingerprints = parts.fingerprints ?? new Map<string, string>();
  const groups = groupsOf(values)
    .map((members) => {
      const { entry } = members[0]!;
      const title = `${entry.kind} "${entry.subject}"`;
      const n = members.length;
      return `<section class="group" data-testid="group" data-subject="${esc(entry.subject)}" data-kind="${entry.kind}">
<h2>${esc(title)} <span class="meta">${n} device${n === 1 ? "" : "s"}</span>
<button class="accept" data-testid="accept-group">Accept all ${n}</button><button class="revert" data-testid="revert-group">Revert all ${n}</button>${sameChangeButtons(members, fingerprints)}</h2>
<div class="cards">${members.map((v) => valueCard(v, (file) => parts.imageUrl(v.entry.key, file), fingerprints.get(v.entry.key))).join("\n")}</div>
</section>`;
    })
    .join("\n");
  const failures = parts.failures ?? [];
  const unreadable = parts.unreadableFailures ?? [];
  const failed = parts.failureImageUrl ? failuresSection(failures, unreadable, parts.failureImageUrl) : "";
  const nothing = !groups && !failed;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tapshot review</title>
<style>${STYLE}${COMPARE_STYLE}${TAP_SCREEN_STYLE}${REVIEW_STYLE}</style>
</head>
<body>
<header>
  <h1>tapshot review</h1>
  <span class="meta">storage <code>${esc(storage)}</code></span>
  <span class="meta" data-testid="count">${values.length} pending${failures.length + unreadable.length ? ` · ${failures.length + unreadable.length} failed in the last run` : ""}</span>
  <span class="meta"><kbd>j</kbd> / <kbd>k</kbd> next / previous · <kbd>a</kbd> accept · <kbd>r</kbd> revert · <kbd>f</kbd> forget a failed tap · <kbd>A</kbd> / <kbd>R</kbd> the whole group · <kbd>s</kbd> the slider (arrows move it, <kbd>Esc</kbd> back)</span>
</header>
${failed}
${groups ? (failed ? `<h2>Pending review</h2>` : "") + groups : ""}
${parts.pendingError ? `<p class="empty-note" data-testid="pending-error">The values pending review cannot be read: ${esc(parts.pendingError)}</p>` : ""}
${nothing && !parts.pendingError ? `<p class="empty-note" data-testid="nothing">Nothing awaits review.</p>` : ""}
<section id="changed" data-testid="changed" hidden><h2>Files changed (commit them)</h2><ul id="changes" data-testid="changes"></ul></section>
<p class="meta" id="errors" data-testid="errors"></p>
<script nonce="${esc(nonce)}">
const TOKEN = ${JSON.stringify(token).replace(/</g, "\\u003c")};
${COMPARE_SCRIPT}
${REVIEW_SCRIPT}
</script>
</body>
</html>
`;
}
