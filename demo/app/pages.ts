/**
 * The demo shop's screens as HTML: cart -> checkout (order summary) -> confirmation.
 * Pure functions of their options, so the same options give the same pixels; only the
 * values derived from `seed` (balance, dates, order number, status-bar clock) vary.
 */

/**
 * Screens of the demo shop. `promo` is a small form of its own (a "Promo code" field and an
 * Apply button that shows what was applied), for `find` (tests/plugin/find.test.ts); the other
 * screens' pixels, which the committed baselines hold, do not change with it.
 */
export const SCREENS = ["cart", "checkout", "confirmation", "promo"] as const;
export type Screen = (typeof SCREENS)[number];

/**
 * Variants of the cart screen: `redesign` moves the Checkout button into a bottom bar and
 * restyles it (orange pill); `regression` removes it. The heal-ladder variants
 * (tests/e2e/heal-ladder.test.ts) change one thing each: `banner` inserts a promotion banner above
 * the content (Checkout moves down, unchanged); `grown` lists two more cart rows (Checkout moves
 * down, unchanged); `restyled` recolours Checkout in its place; `twins` adds a second, identical
 * Checkout button above the list (two equal buttons, neither at the old place). `renamed` labels
 * Checkout "Pay now" in its place (tests/e2e/changed-elements.test.ts). The transfer variants
 * (tests/e2e/transfer.test.ts): `stretched` sizes Checkout by the viewport (44vw x 6vh: 173x51
 * points on an iPhone 15, 165x40 on an iPhone SE, so its shape changes with the screen's);
 * `dialog` draws a modal dialog over the cart, Checkout still in the page under it. `ionic` is of the promo
 * screen only: its form as an Ionic app draws it (tests/plugin/find.test.ts), the toolbar's title saying
 * "Promo code" above an input whose label says "Promo code" too (ion-input's label wraps its native input).
 */
export const VARIANTS = [
  "default",
  "redesign",
  "regression",
  "banner",
  "grown",
  "restyled",
  "twins",
  "renamed",
  "stretched",
  "dialog",
  "ionic",
] as const;
export type Variant = (typeof VARIANTS)[number];

/** What a page is rendered from. */
export interface PageOptions {
  variant: Variant;
  /** Drives the varying content: wallet balance, dates, order number, status-bar clock. */
  seed: number;
  /** System bars to draw, in CSS pixels (0: none), and their platform style. */
  bars: { top: number; bottom: number; platform: "android" | "ios" };
  /**
   * Show a plain loading view (the app bar and "Loading…", no progress indicator) for this many
   * ms before the screen's content, as an app waiting for the network does; 0 or unset: none.
   * Not carried by the page's links: only the page opened with it loads slowly.
   */
  loading?: number;
}

/** The longest `loading` a page accepts, in ms. */
export const MAX_LOADING_MS = 10_000;

/** The query parameters that carry page options from screen to screen. */
export function pageQuery(options: PageOptions): string {
  const params = new URLSearchParams({ variant: options.variant, seed: String(options.seed) });
  if (options.bars.top || options.bars.bottom) {
    params.set("bars", `${options.bars.top},${options.bars.bottom}`);
    params.set("platform", options.bars.platform);
  }
  return params.toString();
}

const ITEMS = [
  { id: "item-shoes", name: "Trail running shoes", detail: "Size 42 · Qty 1", price: 89.9, thumb: "shoes" },
  { id: "item-socks", name: "Merino socks, 3 pairs", detail: "Size M · Qty 1", price: 24.5, thumb: "socks" },
];
/** The rows the `grown` variant lists after {@link ITEMS}. */
const MORE_ITEMS = [
  { id: "item-laces", name: "Spare laces, 2 pairs", detail: "120 cm · Qty 1", price: 6.5, thumb: "shoes" },
  { id: "item-liners", name: "Running liners", detail: "Size M · Qty 2", price: 15.8, thumb: "socks" },
];
const SHIPPING = 4.9;

const euro = (value: number) => `€${value.toFixed(2)}`;
const subtotalOf = (items: readonly { price: number }[]) => items.reduce((sum, item) => sum + item.price, 0);
const subtotal = subtotalOf(ITEMS);
const total = subtotal + SHIPPING;

/** The varying values one seed gives. */
export function varyingValues(seed: number) {
  const n = Math.abs(Math.trunc(seed)) >>> 0;
  // A fixed epoch plus up to ~3 years in minutes, so each seed is a different date and time.
  const moment = new Date(Date.UTC(2026, 0, 1) + (n % 1_576_800) * 60_000);
  const date = moment.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
  const time = moment.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });
  return {
    balance: euro(((n * 7919) % 100_000) / 100 + 20),
    date,
    time,
    orderNumber: `#${String(100_000 + ((n * 104_729) % 900_000))}`,
  };
}

/** `sessionStorage` key of the tap log: every click on the page, kept across the flow's navigations. */
export const TAP_LOG_KEY = "demo-taps";

/** One click the page saw, in CSS pixels, with the nearest `data-testid` it hit. */
export interface LoggedTap {
  screen: string;
  x: number;
  y: number;
  testid: string | null;
}

// Records clicks (a touch tap fires one) so tests can check where a tap landed.
export const TAP_LOG = `document.addEventListener("click", function (e) {
  var hit = e.target instanceof Element ? e.target.closest("[data-testid]") : null;
  var log = JSON.parse(sessionStorage.getItem("${TAP_LOG_KEY}") || "[]");
  log.push({ screen: document.body.dataset.screen, x: e.clientX, y: e.clientY, testid: hit ? hit.getAttribute("data-testid") : null });
  sessionStorage.setItem("${TAP_LOG_KEY}", JSON.stringify(log));
}, true);`;

export function renderPage(screen: Screen, options: PageOptions, css: string): string {
  const query = pageQuery(options);
  const bodies: Record<Screen, () => string> = {
    cart: () => cart(options, query),
    checkout: () => checkout(query),
    confirmation: () => confirmation(options, query),
    promo: () => promo(options, query),
  };
  const body = bodies[screen]();
  const titles: Record<Screen, string> = {
    cart: "Your cart",
    checkout: "Order summary",
    confirmation: "Thank you",
    promo: "Discounts",
  };
  const shown = options.loading ? withLoadingView(body, options.loading) : body;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, maximum-scale=1, user-scalable=no">
<title>Demo shop · ${titles[screen]}</title>
<style>${css}</style>
</head>
<body data-screen="${screen}" data-variant="${options.variant}">
${statusBar(options)}${shown}${navBar(options)}
<script>${TAP_LOG}</script>
</body>
</html>
`;
}

/**
 * A screen's body behind a plain loading view: its content (`<main>`) is rendered hidden, with a
 * "Loading…" view in its place, and shown after `ms`. The content's markup is unchanged, so once
 * shown it has the same pixels as the page opened without `loading`.
 */
function withLoadingView(body: string, ms: number): string {
  const view = `<main class="loading-view" data-testid="loading-view"><p>Loading…</p></main>\n`;
  const hidden = body.replace("<main", `${view}<main hidden`);
  return `${hidden}<script>setTimeout(function () {
  document.querySelector("[data-testid=loading-view]").remove();
  document.querySelector("main[hidden]").hidden = false;
}, ${ms});</script>
`;
}

export function statusBar({ bars, seed }: PageOptions): string {
  if (!bars.top) return "";
  return `<div class="status-bar" data-testid="status-bar" style="height:${bars.top}px">
<span data-testid="status-clock">${varyingValues(seed).time}</span>
<span class="icons"><span class="signal"></span><span class="battery"></span></span>
</div>
`;
}

export function navBar({ bars }: PageOptions): string {
  if (!bars.bottom) return "";
  return `<div class="nav-bar ${bars.platform}" data-testid="nav-bar" style="height:${bars.bottom}px"><span class="pill"></span></div>
`;
}

export function appBar(title: string, back?: string): string {
  const start = back
    ? `<a class="back" href="${back}" data-testid="back-button" role="button">‹ Cart</a>`
    : `<span class="logo"></span>`;
  return `<header class="app-bar" data-testid="app-bar">${start}<h1 data-testid="title">${title}</h1></header>
`;
}

function itemRows(items: readonly (typeof ITEMS)[number][] = ITEMS): string {
  return items
    .map(
      (item) => `<div class="row" data-testid="${item.id}">
<span class="thumb ${item.thumb}"></span>
<span class="name">${item.name}<small>${item.detail}</small></span>
<span class="price" data-testid="${item.id}-price">${euro(item.price)}</span>
</div>`,
    )
    .join("\n");
}

function totals(sum = subtotal): string {
  return `<div class="line"><span>Subtotal</span><span>${euro(sum)}</span></div>
<div class="line"><span>Shipping</span><span>${euro(SHIPPING)}</span></div>
<div class="line total" data-testid="total"><span>Total</span><span>${euro(sum + SHIPPING)}</span></div>`;
}

function cart({ variant, seed }: PageOptions, query: string): string {
  const { balance, date, time } = varyingValues(seed);
  const href = `/checkout?${query}`;
  const checkoutLink = (classes: string) =>
    `<a class="${classes}" href="${href}" data-testid="checkout-button" role="button">${variant === "renamed" ? "Pay now" : "Checkout"}</a>`;
  const button = checkoutLink(variant === "stretched" ? "button stretched" : "button");
  const items = variant === "grown" ? [...ITEMS, ...MORE_ITEMS] : ITEMS;
  const checkout =
    variant === "regression"
      ? ""
      : variant === "restyled"
        ? checkoutLink("button restyled")
        : variant === "redesign"
          ? `<div class="checkout-bar" data-testid="checkout-bar">
<span class="sum"><small>Total</small><strong>${euro(total)}</strong></span>
${checkoutLink("button pill")}
</div>`
          : button;
  const banner =
    variant === "banner"
      ? `<div class="promo" data-testid="promo-banner">Free shipping on orders over €150 this week</div>\n`
      : "";
  const twin = variant === "twins" ? `${button}\n` : "";
  const dialog =
    variant === "dialog"
      ? `<div class="dialog-backdrop" data-testid="dialog"><div class="dialog-card" data-testid="dialog-card">
<strong>Allow notifications?</strong><span>We tell you when your order ships.</span>
<a class="button" href="#" data-testid="dialog-allow" role="button">Allow</a>
</div></div>\n`
      : "";
  return `${appBar("Your cart")}<main>
${banner}${twin}<div class="balance" data-testid="balance"><span>Wallet balance<br>as of ${date}, ${time}</span><strong>${balance}</strong></div>
<div class="card" data-testid="cart-items">
${itemRows(items)}
</div>
<div class="card" data-testid="cart-summary">
${totals(subtotalOf(items))}
</div>
${checkout}
${dialog}</main>
`;
}

function checkout(query: string): string {
  return `${appBar("Order summary", `/cart?${query}`)}<main>
<div class="section-title" data-testid="order-summary">Order summary</div>
<div class="card" data-testid="order-items">
${itemRows()}
</div>
<div class="card" data-testid="order-details">
<div class="line"><span>Deliver to</span><span>Ada Lovelace, London</span></div>
<div class="line"><span>Payment</span><span>Visa •••• 4242</span></div>
${totals()}
</div>
<a class="button" href="/confirmation?${query}" data-testid="place-order-button" role="button">Place order</a>
</main>
`;
}

function confirmation({ seed }: PageOptions, query: string): string {
  const { orderNumber, date } = varyingValues(seed);
  return `${appBar("Thank you")}<main class="done">
<div class="check" data-testid="success-icon"></div>
<h2 data-testid="thank-you">Thank you for your order!</h2>
<p>A confirmation is on its way to your inbox.</p>
<div class="order" data-testid="order-number">Order ${orderNumber} · placed ${date}</div>
<a class="button secondary" href="/cart?${query}" data-testid="continue-button" role="button">Continue shopping</a>
</main>
`;
}

/** A form: a "Promo code" field and an Apply button; Apply shows the code typed in `promo-result`. */
function promo({ variant }: PageOptions, query: string): string {
  const input = (placeholder: string) =>
    `<input class="field" id="promo-input" name="promo" data-testid="promo-input"${placeholder} autocomplete="off">`;
  const form =
    variant === "ionic"
      ? `<label class="field-label ionic-input"><span class="label-text">Promo code</span>\n${input("")}</label>`
      : `<label class="field-label" for="promo-input">Have a code?</label>\n${input(' placeholder="Promo code"')}`;
  return `${appBar(variant === "ionic" ? "Promo code" : "Discounts", `/cart?${query}`)}<main>
<div class="card promo-form" data-testid="promo-form">
${form}
</div>
<button class="button" type="button" data-testid="apply-button" onclick="document.querySelector('[data-testid=promo-result]').textContent = 'Applied: ' + document.getElementById('promo-input').value">Apply</button>
<p class="promo-result" data-testid="promo-result"></p>
</main>
`;
}
