/**
 * The review page: pending values grouped by name or prompt across devices, each with its images
 * (a baseline's previous, new and diff; a tap's old and new crop with the point marked), the model's
 * reason, and Accept / Revert per value and per group. Text is escaped as in the report (esc).
 */
import { esc } from "../report/html.js";
import { STYLE } from "../report/style.js";
import { pointIn, type Overlay } from "../report/view.js";
import type { TapRecord } from "../../core/store/records.js";
import type { PendingValue } from "./pending.js";

const REVIEW_STYLE = `
.group { margin: 20px 0; }
.group h2 { display: flex; gap: 12px; align-items: baseline; }
.value { width: 100%; outline: none; }
.value.current { box-shadow: 0 0 0 3px var(--accent); }
.value.done { opacity: 0.55; }
.value .state { font-weight: 600; }
.screen img { width: 180px; }
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
  // Every image opens full size: a phone screenshot is far larger than its card.
  return `<a class="shot" href="${esc(url)}" target="_blank" rel="noopener" data-testid="full-size"><img src="${esc(url)}" alt="${esc(alt)}">${mark}</a>`;
}

function figure(label: string, body: string, kind: string): string {
  return `<figure class="${kind === "baseline" ? "screen" : "crop"}" data-testid="${esc(label)}">${body}<figcaption>${esc(label)}</figcaption></figure>`;
}

/** A scroll tap's crop is of the screen its swipes reached: say how many, and the swipe. */
function swipesNote({ direction, swipes, swipe }: NonNullable<TapRecord["scroll"]>): string {
  const { from, to, durationMs } = swipe;
  return `<div class="meta" data-testid="swipes">crop of the screen after ${swipes} swipe${swipes === 1 ? "" : "s"} ${esc(direction)} from the start (each from (${from.x}, ${from.y}) to (${to.x}, ${to.y}) over ${durationMs} ms)</div>`;
}

function valueCard({ entry, change }: PendingValue, src: (file: string) => string): string {
  const r = entry.record;
  const figures: string[] = [];
  if (r.kind === "tap") {
    if (change === "heal" && r.previous) {
      figures.push(
        figure("old", image(src("previous.png"), "old crop", pointIn(r.previous.point, r.previous.crop)), "tap"),
      );
    }
    figures.push(figure("new", image(src("png"), "new crop", pointIn(r.point, r.crop)), "tap"));
    if (r.scroll) figures.push(swipesNote(r.scroll));
  } else {
    if (change === "heal")
      figures.push(figure("previous", image(src("previous.png"), "previous baseline"), "baseline"));
    figures.push(figure("new", image(src("png"), "new baseline"), "baseline"));
    if (change === "heal") figures.push(figure("diff", image(src("diff.png"), "diff"), "baseline"));
  }
  const what = change === "heal" ? "healed" : "new";
  return `<article class="card value ${change === "heal" ? "heal" : ""}" tabindex="-1" data-testid="value" data-key="${esc(entry.key)}" data-seen="${esc(r.imageSha256)}" data-device="${esc(entry.device)}">
  <h4>${esc(entry.platform)} · <span class="mono">${esc(entry.device)}</span> · <span class="badge ${what === "new" ? "stored" : "healed"}">${what}</span> <span class="state" data-testid="state"></span></h4>
  <div class="figures">${figures.join("")}</div>
  <div class="meta" data-testid="prompt">${r.kind === "tap" ? "prompt" : "judged against"}: ${esc(r.prompt)}${r.kind === "tap" && r.verify ? ` · verify: ${esc(r.verify)}` : ""}</div>
  ${r.kind === "baseline" && r.changed ? `<div class="meta" data-testid="what-changed">what changed: ${esc(r.changed)}</div>` : ""}
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

/** The page; `imageUrl(key, file)` gives the URL of a value's image (`png`, `previous.png`, `diff.png`). */
export function renderReviewPage(
  values: PendingValue[],
  storage: string,
  token: string,
  imageUrl: (key: string, file: string) => string,
): string {
  const groups = groupsOf(values)
    .map((members) => {
      const { entry } = members[0]!;
      const title = entry.kind === "tap" ? `tap "${entry.subject}"` : `baseline "${entry.subject}"`;
      const n = members.length;
      return `<section class="group" data-testid="group" data-subject="${esc(entry.subject)}" data-kind="${entry.kind}">
<h2>${esc(title)} <span class="meta">${n} device${n === 1 ? "" : "s"}</span>
<button class="accept" data-testid="accept-group">Accept all ${n}</button><button class="revert" data-testid="revert-group">Revert all ${n}</button></h2>
<div class="cards">${members.map((v) => valueCard(v, (file) => imageUrl(v.entry.key, file))).join("\n")}</div>
</section>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tapshot review</title>
<style>${STYLE}${REVIEW_STYLE}</style>
</head>
<body>
<header>
  <h1>tapshot review</h1>
  <span class="meta">storage <code>${esc(storage)}</code></span>
  <span class="meta" data-testid="count">${values.length} pending</span>
  <span class="meta"><kbd>j</kbd> / <kbd>k</kbd> next / previous · <kbd>a</kbd> accept · <kbd>r</kbd> revert · <kbd>A</kbd> / <kbd>R</kbd> the whole group</span>
</header>
${groups || `<p class="empty-note" data-testid="nothing">Nothing awaits review.</p>`}
<section id="changed" data-testid="changed" hidden><h2>Files changed (commit them)</h2><ul id="changes" data-testid="changes"></ul></section>
<p class="meta" id="errors" data-testid="errors"></p>
<script>
const TOKEN = ${JSON.stringify(token).replace(/</g, "\\u003c")};
const cards = [...document.querySelectorAll("[data-testid=value]")];
let current = 0;
function focus(i) {
  cards.forEach((c) => c.classList.remove("current"));
  current = Math.max(0, Math.min(cards.length - 1, i));
  if (cards[current]) { cards[current].classList.add("current"); cards[current].focus(); }
}
async function decide(decision, targets) {
  targets = targets.filter((c) => !c.classList.contains("done"));
  if (!targets.length) return;
  const response = await fetch("/decide?token=" + encodeURIComponent(TOKEN), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ decision, values: targets.map((c) => ({ key: c.dataset.key, seen: c.dataset.seen })) }),
  });
  const result = await response.json();
  if (!response.ok) { document.getElementById("errors").textContent = result.error; return; }
  for (const change of result.changes) {
    const card = targets.find((c) => c.dataset.key === change.key);
    card.classList.add("done");
    card.querySelector("[data-testid=state]").textContent = change.action === "unchanged" || change.action === "failed" ? change.action + ": " + change.why : change.action;
    for (const file of change.files) {
      const li = document.createElement("li");
      li.textContent = file;
      document.getElementById("changes").append(li);
      document.getElementById("changed").hidden = false;
    }
  }
  const next = cards.findIndex((c) => !c.classList.contains("done"));
  if (next >= 0) focus(next);
}
for (const card of cards) {
  card.querySelector("[data-testid=accept]").onclick = () => decide("accept", [card]);
  card.querySelector("[data-testid=revert]").onclick = () => decide("revert", [card]);
}
for (const group of document.querySelectorAll("[data-testid=group]")) {
  const members = () => [...group.querySelectorAll("[data-testid=value]")];
  group.querySelector("[data-testid=accept-group]").onclick = () => decide("accept", members());
  group.querySelector("[data-testid=revert-group]").onclick = () => decide("revert", members());
}
document.addEventListener("keydown", (event) => {
  const card = cards[current];
  if (!card || event.ctrlKey || event.metaKey || event.altKey) return;
  const group = () => [...card.closest("[data-testid=group]").querySelectorAll("[data-testid=value]")];
  const act = { j: () => focus(current + 1), k: () => focus(current - 1), a: () => decide("accept", [card]),
    r: () => decide("revert", [card]), A: () => decide("accept", group()), R: () => decide("revert", group()) }[event.key];
  if (act) { event.preventDefault(); act(); }
});
focus(0);
</script>
</body>
</html>
`;
}
