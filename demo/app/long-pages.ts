/**
 * The rig's screens for scroll taps: `long-cart` (a cart of many rows with "Place order" below
 * the fold; `rows` sets how many, so a run can have one row more or fewer) and `carousel` (a
 * horizontal strip of offers with the "Gift card" one off screen to the right); and for
 * whole-page baselines `long-list` (an order history between a sticky app bar and a sticky total
 * bar; `rows` sets its rows, and the `renamed` variant renames row {@link RENAMED_ROW}, on the
 * third screen of a Pixel 7). Like the other screens, pure functions of their options. Their
 * scroll containers draw no scroll bars and do not bounce, so a screen that stopped scrolling
 * stops changing.
 */
import { appBar, navBar, pageQuery, statusBar, TAP_LOG, type PageOptions } from "./pages.js";

/** Screens that scroll. */
export const LONG_SCREENS = ["long-cart", "carousel", "long-list"] as const;
export type LongScreen = (typeof LONG_SCREENS)[number];

/** The long list's row that the `renamed` variant renames. */
export const RENAMED_ROW = 22;

/** Rows of the long cart unless `rows` says otherwise. */
export const LONG_CART_ROWS = 30;
/** The most rows `rows` may ask for. */
export const MAX_LONG_CART_ROWS = 60;

const COLOURS = ["#e8553e", "#2c9c6a", "#1450c8", "#c88a14", "#8a3fc8", "#3fa8c8", "#c83f7a"];
const OFFERS = ["Free shipping", "Winter sale", "Socks 3 for 2", "New arrivals", "Gift card"];

const STYLE = `.scroller {
  flex: 1;
  overflow-y: auto;
  overflow-x: hidden;
  overscroll-behavior: none;
  scrollbar-width: none;
  padding: 12px 16px;
}
.scroller::-webkit-scrollbar, .strip::-webkit-scrollbar { display: none; }
.strip {
  display: flex;
  gap: 12px;
  overflow-x: auto;
  overflow-y: hidden;
  overscroll-behavior: none;
  scrollbar-width: none;
  padding: 4px 0 12px;
}
.total-bar {
  flex: none;
  display: flex;
  align-items: center;
  justify-content: space-between;
  height: 56px;
  padding: 0 16px;
  background: #1c1f26;
  color: #fff;
  font-weight: bold;
}
.offer {
  flex: none;
  width: 220px;
  height: 260px;
  border-radius: 16px;
  color: #fff;
  font-size: 20px;
  font-weight: bold;
  display: flex;
  align-items: flex-end;
  padding: 16px;
  box-sizing: border-box;
}`;

/** The HTML of a long screen; `rows` only matters for `long-cart`. */
export function renderLongPage(screen: LongScreen, options: PageOptions, rows: number, css: string): string {
  const query = pageQuery(options);
  const body =
    screen === "long-cart" ? longCart(query, rows) : screen === "long-list" ? longList(options, rows) : carousel();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, maximum-scale=1, user-scalable=no">
<title>Demo shop · ${TITLES[screen]}</title>
<style>${css}
${STYLE}</style>
</head>
<body data-screen="${screen}" data-variant="${options.variant}">
${statusBar(options)}${body}${navBar(options)}
<script>${TAP_LOG}</script>
</body>
</html>
`;
}

function longCart(query: string, rows: number): string {
  const items = Array.from({ length: rows }, (_, i) => {
    const n = i + 1;
    return `<div class="row" data-testid="long-item-${n}">
<span class="thumb" style="background:${COLOURS[i % COLOURS.length]}"></span>
<span class="name">Item number ${n}<small>Qty 1</small></span>
<span class="price">€${(n * 3 + 0.5).toFixed(2)}</span>
</div>`;
  }).join("\n");
  return `${appBar("Your big cart")}<div class="scroller" data-testid="long-list">
<div class="card">
${items}
</div>
<a class="button" href="/confirmation?${query}" data-testid="place-order-button" role="button">Place order</a>
</div>
`;
}

const TITLES: Record<LongScreen, string> = {
  "long-cart": "Your big cart",
  carousel: "Offers",
  "long-list": "Your orders",
};

function longList(options: PageOptions, rows: number): string {
  const items = Array.from({ length: rows }, (_, i) => {
    const n = i + 1;
    const name = options.variant === "renamed" && n === RENAMED_ROW ? `Order ${n} (returned)` : `Order number ${n}`;
    return `<div class="row" data-testid="order-${n}">
<span class="thumb" style="background:${COLOURS[i % COLOURS.length]}"></span>
<span class="name">${name}<small>${1 + (n % 4)} items</small></span>
<span class="price">€${(n * 7 + 0.9).toFixed(2)}</span>
</div>`;
  }).join("\n");
  const total = Array.from({ length: rows }, (_, i) => (i + 1) * 7 + 0.9).reduce((a, b) => a + b, 0);
  return `${appBar("Your orders")}<div class="scroller" data-testid="order-list">
<div class="card">
${items}
</div>
</div>
<footer class="total-bar" data-testid="total-bar"><span>${rows} orders</span><span>€${total.toFixed(2)}</span></footer>
`;
}

function carousel(): string {
  const offers = OFFERS.map(
    (offer, i) =>
      `<div class="offer" role="button" data-testid="offer-${i + 1}" style="background:${COLOURS[i % COLOURS.length]}">${offer}</div>`,
  ).join("\n");
  return `${appBar("Offers")}<main>
<div class="section-title">This week</div>
<div class="strip" data-testid="offer-strip">
${offers}
</div>
</main>
`;
}
