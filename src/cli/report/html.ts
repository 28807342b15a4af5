/** Renders the report view as one static HTML page (no external assets; its only script moves the sliders, compare.ts). */
import { subjectOf } from "../../core/ground/log.js";
import { createHash } from "node:crypto";
import { age } from "../format.js";
import { reviewOf } from "../../core/store/review-state.js";
import { boxOverlays, COMPARE_SCRIPT, COMPARE_STYLE, compareFigures, fullSize, pct } from "./compare.js";
import { esc } from "./escape.js";
import { STYLE } from "./style.js";
import { TAP_SCREEN_STYLE, tapOnScreen } from "./tap-screen.js";
import { costRows } from "./totals.js";
import { deviceOf } from "../model.js";
import type { BaselineView, CallView, Overlay, ReportView, TapView } from "./view.js";

/**
 * The report's content policy: its own images (beside it, opened from disk or served), inline
 * styles, and only its own slider script, by hash; nothing fetched, no other script, wherever
 * the page is opened.
 */
const REPORT_POLICY =
  `default-src 'none'; img-src 'self' file:; style-src 'unsafe-inline'; ` +
  `script-src 'sha256-${createHash("sha256").update(COMPARE_SCRIPT).digest("base64")}'`;

function when(time: Date | string, now: number): string {
  const iso = new Date(time).toISOString();
  return `<time datetime="${esc(iso)}" title="${esc(iso)}">${esc(age(time, now))}</time>`;
}

function img(url: string | undefined, alt: string, overlays = ""): string {
  return url ? fullSize(url, alt, overlays) : `<span class="empty-note">image missing</span>`;
}

function marker(point: Overlay, label: string): string {
  return `<span class="point" style="${pct(point)}" title="${esc(label)}" data-testid="tap-point"></span>`;
}

function badge(outcome: string): string {
  return `<span class="badge ${esc(outcome)}">${esc(outcome)}</span>`;
}

/** A "pending review" badge for a value nobody has accepted yet (docs/reviewing.md). */
function pending(record: Parameters<typeof reviewOf>[0]): string {
  return reviewOf(record).state === "pending"
    ? ` <span class="badge pending" data-testid="pending">pending review</span>`
    : "";
}

function failureCard(call: CallView): string {
  const e = call.entry;
  const subject = subjectOf(e);
  const url = (label: string) => call.artifacts.find((a) => a.label === label)?.url;
  const [expected, actual, diff] = ["expected", "actual", "diff"].map(url);
  // A baseline's expected / actual / diff side by side, with the slider; the other images as kept.
  const compared = e.api !== "tap" && expected && actual;
  const compare = compared
    ? compareFigures({
        subject,
        expected: { url: expected },
        actual: { url: actual },
        ...(diff ? { diff: { url: diff } } : {}),
      })
    : "";
  const shown = new Set(compared ? ["expected", "actual", "diff"] : []);
  const figures = call.artifacts
    .filter((a) => !shown.has(a.label))
    .map(
      (a) =>
        `<figure class="artifact" data-testid="artifact" data-label="${esc(a.label)}">` +
        (a.url
          ? img(a.url, `${subject} ${a.label}`)
          : `<span class="empty-note">not in the run folder: ${esc(a.notCopied)}</span>`) +
        `<figcaption>${esc(a.label)}</figcaption></figure>`,
    )
    .join("");
  return `<article class="card failure" data-testid="failure" data-api="${esc(e.api)}" data-subject="${esc(e.prompt ?? e.name)}" data-device="${esc(e.device)}">
  <h4>${esc(subject)} ${badge("failed")}</h4>
  <div class="meta">${esc(e.device)} · run <span class="mono">${esc(call.run)}</span> · ${esc(e.at)}</div>
  ${e.detail ? `<pre>${esc(e.detail)}</pre>` : ""}
  ${compare}
  ${figures || compare ? `<div class="figures">${figures}</div>` : `<div class="figures"><span class="empty-note">no artifacts reported</span></div>`}
</article>`;
}

function healCard(view: TapView | BaselineView, now: number): string {
  const { entry } = view;
  const r = entry.record;
  const prev = r.previous!;
  let figures: string;
  if ("point" in view) {
    const tap = view as TapView;
    const rec = tap.entry.record;
    const before = img(
      tap.before?.crop,
      "before",
      marker(tap.before!.point, `(${rec.previous!.point.x}, ${rec.previous!.point.y})`),
    );
    const after = img(tap.crop, "after", marker(tap.point, `(${rec.point.x}, ${rec.point.y})`));
    figures = `<div class="figures">
    <figure class="crop" data-testid="heal-before">${before}<figcaption>before · (${rec.previous!.point.x}, ${rec.previous!.point.y})</figcaption></figure>
    <figure class="crop" data-testid="heal-after">${after}<figcaption>after · (${rec.point.x}, ${rec.point.y})</figcaption></figure>
    ${tapOnScreen(rec, tap.crop, entry.subject, rec.previous)}
  </div>`;
  } else {
    const base = view as BaselineView;
    figures = compareFigures({
      subject: entry.subject,
      ...(base.before ? { expected: { url: base.before } } : {}),
      ...(base.image ? { actual: { url: base.image } } : {}),
      labels: { expected: "before", actual: "after", diff: "diff" },
    });
  }
  const title = `${entry.kind} "${entry.subject}"`;
  return `<article class="card heal" data-testid="heal" data-kind="${entry.kind}" data-subject="${esc(entry.subject)}" data-device="${esc(entry.device)}">
  <h4>${esc(title)} ${view.healedInLastRun ? badge("healed") + ' <span class="meta">in the last run</span>' : ""}${pending(r)}</h4>
  <div class="meta">${esc(entry.platform)} · ${esc(deviceOf(entry))} · healed ${when(r.storedAt, now)} by <span class="mono">${esc(r.model)}</span></div>
  ${figures}
  <div class="meta">${esc(r.reason)}</div>
  <div class="meta">before: stored ${when(prev.storedAt, now)} by <span class="mono">${esc(prev.model)}</span></div>
</article>`;
}

function baselineCell(view: BaselineView | undefined, device: string, name: string, now: number): string {
  if (!view)
    return `<td class="empty" data-testid="baseline-missing" data-name="${esc(name)}" data-device="${esc(device)}">not stored</td>`;
  const { entry } = view;
  const masks = view.promptMasks;
  const overlays =
    boxOverlays(view.varying, "varying") +
    boxOverlays(
      masks.map((m) => m.box),
      "prompt-mask",
      masks.map((m) => `masked: ${m.prompt}`),
    );
  return `<td data-testid="baseline" data-name="${esc(name)}" data-device="${esc(device)}">
  <figure><span class="screen">${img(view.image, `${name} on ${device}`, overlays)}</span>
  <figcaption><span data-testid="prompt">judged against: ${esc(entry.record.prompt)}</span><br>stored ${when(entry.record.storedAt, now)} · used ${when(entry.lastUsed, now)}${entry.healedAt ? ` · ${badge("healed")}` : ""}${pending(entry.record)}</figcaption></figure>
</td>`;
}

function tapCard(view: TapView, now: number): string {
  const { entry } = view;
  const r = entry.record;
  return `<article class="card tap" data-testid="tap" data-prompt="${esc(entry.subject)}" data-device="${esc(entry.device)}">
  <div class="prompt">${esc(entry.subject)}</div>
  ${r.verify ? `<div class="meta">verify: ${esc(r.verify)}</div>` : ""}
  <div class="figures"><figure class="crop">${img(view.crop, `crop of ${entry.subject}`, marker(view.point, `(${r.point.x}, ${r.point.y})`))}
  <figcaption>point <span class="mono" data-testid="tap-coordinates">(${r.point.x}, ${r.point.y})</span> · crop ${r.crop.width}×${r.crop.height} at (${r.crop.x}, ${r.crop.y})</figcaption></figure>
  ${tapOnScreen(r, view.crop, entry.subject)}</div>
  <div class="meta">stored ${when(r.storedAt, now)} · used ${when(entry.lastUsed, now)} · <span class="mono">${esc(r.model)}</span>${entry.healedAt ? ` · ${badge("healed")}` : ""}${pending(r)}</div>
</article>`;
}

function callRow(call: CallView): string {
  const e = call.entry;
  return `<tr data-testid="call" data-outcome="${esc(e.outcome)}">
  <td>${esc(e.api === "tap" || e.api === "act" || e.api === "toSatisfy" ? e.api : "screenshot")}</td><td>${esc(e.prompt ?? e.name ?? "")}</td><td class="mono">${esc(e.device)}</td>
  <td>${badge(e.outcome)}</td><td>${esc(e.aiCalls ?? "")}</td><td>${e.durationMs !== undefined ? `${Math.round(e.durationMs)} ms` : ""}</td>
  <td class="detail">${esc(e.detail ?? "")}</td></tr>`;
}

function section(id: string, title: string, body: string): string {
  return `<section id="${id}"><h2>${esc(title)}</h2>${body}</section>`;
}

const none = (text: string) => `<p class="empty-note">${esc(text)}</p>`;

/** The report page: a summary, then one section per part (failures, heals, baselines, taps, cost, calls). */
export function renderReport(view: ReportView): string {
  const now = Date.parse(view.generatedAt);
  const { store } = view;
  const runIds = view.runs.map((r) => r.id);
  const invalid = invalidList(view);
  const count = (n: number, what: string, href: string) => `<li><a href="#${href}"><b>${n}</b>${esc(what)}</a></li>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${REPORT_POLICY}">
<title>tapshot report</title>
<style>${STYLE}${COMPARE_STYLE}${TAP_SCREEN_STYLE}</style>
</head>
<body>
<header>
  <h1>tapshot report</h1>
  <span class="meta">storage <code>${esc(store.root)}</code></span>
  <span class="meta">${runIds.length ? `last run <code>${esc(runIds.join(", "))}</code>` : "no run results"}</span>
  <span class="meta">generated ${esc(view.generatedAt)}</span>
</header>
<ul class="summary">
  ${count(view.failures.length, "failures", "failures")}
  ${count(view.heals.length, "heals", "heals")}
  ${count(store.baselines.length, "baselines", "baselines")}
  ${count(store.taps.length, "taps", "taps")}
  ${count(view.calls.length, "calls in the last run", "calls")}
  ${store.invalid.length ? count(store.invalid.length, "invalid files", "invalid") : ""}
</ul>
${section("failures", "Failures in the last run", failuresPart(view))}
${section("heals", "Heals: before and after", healsPart(view, now))}
${section("baselines", "Baselines per device", gridsPart(view, now))}
${section("taps", "Stored taps", tapsPart(view, now))}
${section("cost", "Model calls and their cost in the last run", costPart(view))}
${section("calls", "Calls in the last run", callsPart(view))}
${invalid ? section("invalid", "Invalid files (restore from git, or delete to learn again)", invalid) : ""}
<script>${COMPARE_SCRIPT}</script>
</body>
</html>
`;
}

function failuresPart(view: ReportView): string {
  return view.failures.length
    ? `<div class="cards">${view.failures.map(failureCard).join("\n")}</div>`
    : none(view.runs.length ? "No failures in the last run." : "No run results found.");
}

function healsPart(view: ReportView, now: number): string {
  return view.heals.length
    ? `<div class="cards">${view.heals.map((h) => healCard(h, now)).join("\n")}</div>`
    : none("No stored value has been healed.");
}

/** One table per platform: a row per baseline name, a column per device. */
function gridsPart(view: ReportView, now: number): string {
  if (!view.grids.length) return none("No baselines stored.");
  return view.grids
    .map(
      (g) => `<h3>${esc(g.platform)}</h3>
<table class="grid" data-testid="baseline-grid" data-platform="${esc(g.platform)}">
<thead><tr><th>name</th>${g.devices.map((d) => `<th class="mono">${esc(d)}</th>`).join("")}</tr></thead>
<tbody>${g.rows
        .map(
          (row) =>
            `<tr><td class="name">${esc(row.name)}</td>${row.cells.map((c, i) => baselineCell(c, g.devices[i]!, row.name, now)).join("")}</tr>`,
        )
        .join("\n")}</tbody></table>`,
    )
    .join("\n");
}

/** The stored taps, grouped by platform and device. */
function tapsPart(view: ReportView, now: number): string {
  if (!view.taps.length) return none("No taps stored.");
  const groups = new Map<string, TapView[]>();
  for (const t of view.taps) {
    const group = `${t.entry.platform} · ${deviceOf(t.entry)}`;
    groups.set(group, [...(groups.get(group) ?? []), t]);
  }
  return [...groups]
    .map(
      ([group, members]) =>
        `<h3>${esc(group)}</h3><div class="cards">${members.map((t) => tapCard(t, now)).join("\n")}</div>`,
    )
    .join("\n");
}

function callsPart(view: ReportView): string {
  return view.calls.length
    ? `<table class="calls"><thead><tr><th>api</th><th>prompt / name</th><th>device</th><th>outcome</th><th>AI calls</th><th>time</th><th>detail</th></tr></thead>
<tbody>${view.calls.map(callRow).join("\n")}</tbody></table>`
    : none("No run results found.");
}

function costPart(view: ReportView): string {
  return view.calls.length
    ? `<table class="cost" data-testid="cost"><tbody>${costRows(view.totals)
        .map((r) => `<tr data-testid="cost-${r.id}"><th>${esc(r.label)}</th><td>${esc(r.value)}</td></tr>`)
        .join("\n")}</tbody></table>`
    : none("No run results found.");
}

function invalidList({ store }: ReportView): string {
  return store.invalid.length
    ? `<ul class="invalid">${store.invalid.map((i) => `<li data-testid="invalid"><code>${esc(i.key)}</code>: ${esc(i.problem)}</li>`).join("")}</ul>`
    : "";
}
