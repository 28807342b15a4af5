/**
 * The review page's script (page.ts): a queue of cards walked with the keyboard, and the buttons.
 * Pending values go to POST /decide, the last run's failures to POST /failures (server.ts); each
 * answer lists the files changed. Inlined with the page's CSP nonce; it fetches nothing else.
 */
export const REVIEW_SCRIPT = `
const cards = [...document.querySelectorAll("[data-testid=value], [data-testid=failure]")];
let current = 0;
function focus(i) {
  cards.forEach((c) => c.classList.remove("current"));
  current = Math.max(0, Math.min(cards.length - 1, i));
  if (cards[current]) { cards[current].classList.add("current"); cards[current].focus(); }
}
async function post(path, body) {
  const response = await fetch(path + "?token=" + encodeURIComponent(TOKEN), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const result = await response.json();
  if (!response.ok) { document.getElementById("errors").textContent = result.error; return []; }
  return result.changes;
}
function show(card, change) {
  card.classList.add("done");
  const failed = change.action === "unchanged" || change.action === "failed" || change.action === "refused";
  card.querySelector("[data-testid=state]").textContent = failed ? change.action + ": " + change.why : change.action;
  for (const file of change.files) {
    const li = document.createElement("li");
    li.textContent = file;
    document.getElementById("changes").append(li);
    document.getElementById("changed").hidden = false;
  }
}
/** decision: accept or revert (pending values), accept or forget (failures). */
async function decide(decision, targets) {
  targets = targets.filter((c) => !c.classList.contains("done"));
  const values = targets.filter((c) => c.dataset.testid === "value");
  const failures = targets.filter((c) => c.dataset.testid === "failure" &&
    (decision === "accept" ? c.dataset.kind === "baseline" : decision === "forget" && c.dataset.kind === "tap"));
  if (values.length && decision !== "forget") {
    const changes = await post("/decide", { decision, values: values.map((c) => ({ key: c.dataset.key, seen: c.dataset.seen })) });
    for (const change of changes) show(values.find((c) => c.dataset.key === change.key), change);
  }
  if (failures.length) {
    const changes = await post("/failures", { action: decision, ids: failures.map((c) => c.dataset.id) });
    for (const change of changes) show(failures.find((c) => c.dataset.id === change.id), change);
  }
  const next = cards.findIndex((c) => !c.classList.contains("done"));
  if (next >= 0) focus(next);
}
const membersOf = (card) => [...card.closest("[data-testid=group], [data-testid=failure-group]").querySelectorAll("[data-testid=value], [data-testid=failure]")];
for (const card of cards) {
  for (const button of card.querySelectorAll("button")) {
    const decision = button.dataset.action || button.dataset.testid;
    button.onclick = () => { focus(cards.indexOf(card)); decide(decision, [card]); };
  }
}
for (const group of document.querySelectorAll("[data-testid=group], [data-testid=failure-group]")) {
  const members = () => [...group.querySelectorAll("[data-testid=value], [data-testid=failure]")];
  for (const button of group.querySelectorAll("h2 > button, h3 > button")) {
    const same = button.dataset.fingerprint;
    const decision = button.dataset.action || button.dataset.testid.replace(/-(group|same)$/, "");
    button.onclick = () => decide(decision, same ? members().filter((c) => c.dataset.fingerprint === same) : members());
  }
}
document.addEventListener("keydown", (event) => {
  const card = cards[current];
  if (!card || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "Escape") { event.preventDefault(); return focus(current); }
  const slider = card.querySelector("[data-testid=slider]");
  const act = { j: () => focus(current + 1), k: () => focus(current - 1), a: () => decide("accept", [card]),
    r: () => decide("revert", [card]), f: () => decide("forget", [card]), A: () => decide("accept", membersOf(card)),
    R: () => decide("revert", membersOf(card)), s: () => slider && slider.focus() }[event.key];
  if (act) { event.preventDefault(); act(); }
});
focus(0);
`;
