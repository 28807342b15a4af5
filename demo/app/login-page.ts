/**
 * The shop's sign-in screen, for `ai.act` (demo/flow.ts, tests/e2e/act.test.ts): an email field,
 * a password field, a "Remember me" switch, a country select and a "Sign in" button. Sign in shows
 * a short busy state (a progress bar marked `aria-busy`), then opens the cart with the page's
 * parameters (variant, seed, bars), as the shop's links carry them, but for the sign-in page's own
 * variants below, after which the cart is the default one. Typed text is never echoed on any screen, and the page keeps only what a
 * test needs to check that the values arrived: `sessionStorage[SIGN_IN_KEY]` holds the email, the
 * password's length, the switch and the country of the last sign-in.
 *
 * Variants (the login page's own meaning of the shop's names): `banner` inserts a promotion banner
 * above the form, so every control moves down unchanged; `regression` has no "Sign in" button but a
 * "Continue" one of another look and identity in its place.
 */
import { appBar, navBar, pageQuery, statusBar, TAP_LOG, type PageOptions } from "./pages.js";

/** The sign-in screen. */
export const LOGIN_SCREENS = ["login"] as const;
export type LoginScreen = (typeof LOGIN_SCREENS)[number];

/** The variants that change the sign-in page (and not the cart opened after it). */
const LOGIN_VARIANTS: readonly string[] = ["banner", "regression"];

/** `sessionStorage` key of the last sign-in the page saw. */
export const SIGN_IN_KEY = "demo-sign-in";

/** What the page recorded of a sign-in: the password only by its length. */
export interface SignIn {
  email: string;
  passwordLength: number;
  remember: boolean;
  country: string;
}

/** How long the busy state after Sign in lasts, in ms. */
export const SIGN_IN_BUSY_MS = 1200;

/** The countries of the select, the first one chosen. */
export const COUNTRIES = ["United Kingdom", "Germany", "France", "Spain", "Italy"] as const;

const STYLE = `.sign-in { display: flex; flex-direction: column; gap: 12px; }
.sign-in .field { display: flex; flex-direction: column; gap: 6px; font-size: 13px; font-weight: 600; color: #4b5563; }
.sign-in input[type=email], .sign-in input[type=password], .sign-in select {
  height: 46px; padding: 0 12px; border: 1px solid #c9ced8; border-radius: 10px; background: #fff;
  font: inherit; font-size: 16px; font-weight: normal; color: #1c1f26; outline: none; user-select: text;
  -webkit-appearance: none; appearance: none;
}
.sign-in .toggle { display: flex; align-items: center; justify-content: space-between; height: 46px; font-size: 15px; }
.sign-in input[role=switch] {
  -webkit-appearance: none; appearance: none; position: relative; width: 50px; height: 30px; margin: 0;
  border-radius: 15px; background: #c9ced8; outline: none;
}
.sign-in input[role=switch]::after {
  content: ""; position: absolute; top: 3px; left: 3px; width: 24px; height: 24px; border-radius: 12px; background: #fff;
}
.sign-in input[role=switch]:checked { background: #2c9c6a; }
.sign-in input[role=switch]:checked::after { left: 23px; }
.sign-in button { border: none; font: inherit; font-size: 17px; font-weight: bold; width: 100%; }
.busy { display: flex; flex-direction: column; align-items: center; gap: 14px; padding-top: 80px; color: #6b7280; }
.busy[hidden] { display: none; }
.busy .bar { width: 160px; height: 6px; border-radius: 3px; background: #1450c8; }
`;

/** The sign-in page as HTML. */
export function renderLoginPage(options: PageOptions, css: string): string {
  // The sign-in page's own variants change only it: the cart after it is the default one.
  const variant = LOGIN_VARIANTS.includes(options.variant) ? "default" : options.variant;
  const cart = `/cart?${pageQuery({ ...options, variant })}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, maximum-scale=1, user-scalable=no">
<title>Demo shop · Sign in</title>
<style>${css}${STYLE}</style>
</head>
<body data-screen="login" data-variant="${options.variant}">
${statusBar(options)}${appBar("Sign in")}${form(options)}${navBar(options)}
<script>${TAP_LOG}</script>
<script>${submitScript(cart)}</script>
</body>
</html>
`;
}

function form({ variant }: PageOptions): string {
  const banner =
    variant === "banner"
      ? `<div class="promo" data-testid="promo-banner">Members get free shipping this week</div>\n`
      : "";
  const options = COUNTRIES.map((c) => `<option value="${c}">${c}</option>`).join("");
  const submit =
    variant === "regression"
      ? `<button type="submit" class="button secondary" id="continue" data-testid="continue-button">Continue</button>`
      : `<button type="submit" class="button" id="sign-in" data-testid="sign-in-button">Sign in</button>`;
  return `<main>
${banner}<form class="sign-in" data-testid="sign-in-form" novalidate>
<label class="field">Email<input type="email" id="email" name="email" aria-label="Email" data-testid="email-field" autocomplete="off" placeholder="you@example.com"></label>
<label class="field">Password<input type="password" id="password" name="password" aria-label="Password" data-testid="password-field" autocomplete="off" placeholder="Password"></label>
<label class="toggle">Remember me<input type="checkbox" role="switch" id="remember" name="remember" aria-label="Remember me" data-testid="remember-switch"></label>
<label class="field">Country<select id="country" name="country" aria-label="Country" data-testid="country-select">${options}</select></label>
${submit}
</form>
</main>
<main class="busy" data-testid="signing-in" hidden><div class="bar" role="progressbar" aria-busy="true" aria-label="Signing in"></div><p>Signing in…</p></main>
`;
}

/** Sign in: refuse empty fields, record the sign-in (the password by length), show the busy state, open the cart. */
function submitScript(cart: string): string {
  return `document.querySelector("form").addEventListener("submit", function (e) {
  e.preventDefault();
  var f = e.target.elements;
  if (!f.email.value || !f.password.value) return;
  sessionStorage.setItem("${SIGN_IN_KEY}", JSON.stringify({ email: f.email.value, passwordLength: f.password.value.length, remember: f.remember.checked, country: f.country.value }));
  document.querySelector("main").hidden = true;
  document.querySelector("[data-testid=signing-in]").hidden = false;
  setTimeout(function () { location.replace(${JSON.stringify(cart)}); }, ${SIGN_IN_BUSY_MS});
});`;
}
