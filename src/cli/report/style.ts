/** The report's stylesheet: plain CSS, inlined, no external fonts or assets. */
export const STYLE = `
:root {
  --ink: #1d2330; --muted: #667085; --line: #e4e7ec; --panel: #ffffff; --page: #f5f6f8;
  --accent: #3b5bdb; --ok: #2b8a3e; --heal: #b35c00; --fail: #c92a2a; --mark: #ff0066;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--page);
}
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 64px; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 8px 24px; margin-bottom: 8px; }
h1 { font-size: 22px; margin: 0; letter-spacing: -0.01em; }
h2 { font-size: 17px; margin: 32px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 20px 0 8px; color: var(--muted); font-weight: 600; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
.meta { color: var(--muted); }
.summary { display: flex; flex-wrap: wrap; gap: 8px; margin: 12px 0 4px; padding: 0; list-style: none; }
.summary li { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 6px 12px; }
.summary b { font-size: 16px; margin-right: 4px; }
.summary a { color: inherit; text-decoration: none; }
.badge { display: inline-block; border-radius: 999px; padding: 0 8px; font-size: 11px; font-weight: 600;
  line-height: 18px; background: #eef1f6; color: var(--muted); white-space: nowrap; }
.badge.replayed, .badge.matched { background: #e6f4ea; color: var(--ok); }
.badge.learned, .badge.stored { background: #e7edff; color: var(--accent); }
.badge.healed { background: #fff1e0; color: var(--heal); }
.badge.failed { background: #fdecec; color: var(--fail); }
.badge.pending { background: #fff8db; color: #8a6100; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.card h4 { margin: 0 0 4px; font-size: 14px; }
.card .meta { font-size: 12px; }
.failure { border-left: 4px solid var(--fail); width: 100%; }
.heal { border-left: 4px solid var(--heal); }
.failure pre { white-space: pre-wrap; margin: 8px 0; color: var(--fail); }
.figures { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; margin-top: 8px; }
figure { margin: 0; }
figcaption { font-size: 12px; color: var(--muted); margin-top: 4px; }
.shot { position: relative; display: inline-block; line-height: 0; border: 1px solid var(--line);
  border-radius: 6px; overflow: hidden; background: repeating-conic-gradient(#f0f0f0 0 25%, #fff 0 50%) 0 0 / 16px 16px; }
.shot img { display: block; max-width: 100%; height: auto; }
.screen img { width: 120px; }
/* A caption wraps to its image's width instead of widening the figure. */
figure.screen > figcaption { width: 0; min-width: 100%; }
.artifact img { max-height: 260px; max-width: 400px; width: auto; }
.crop img { max-width: 240px; min-width: 48px; }
/* A hollow ring: the label under the point stays readable. */
.point { position: absolute; width: 22px; height: 22px; margin: -11px 0 0 -11px; border-radius: 50%;
  border: 2px solid var(--mark); background: transparent; box-shadow: 0 0 0 1px #fff, inset 0 0 0 1px #fff; }
.varying { position: absolute; border: 1px dashed var(--accent); background: rgba(59, 91, 219, 0.15); }
table { border-collapse: collapse; background: var(--panel); border: 1px solid var(--line); border-radius: 10px; }
th, td { text-align: left; vertical-align: top; padding: 8px 12px; border-bottom: 1px solid var(--line); }
th { font-size: 12px; color: var(--muted); font-weight: 600; background: #fafbfc; }
.grid td.name { font-weight: 600; white-space: nowrap; }
.grid figure { max-width: 200px; }
.grid td.empty { color: var(--muted); font-size: 12px; text-align: center; vertical-align: middle; }
.calls td { font-size: 13px; }
.cost th { width: 320px; }
.calls td.detail { color: var(--muted); max-width: 560px; }
.tap { width: 420px; }
.tap figure.crop { max-width: 250px; }
.tap .prompt { font-weight: 600; }
.invalid li { margin-bottom: 4px; }
.empty-note { color: var(--muted); }
`;
