/** The review page shows a scroll tap's final crop with the swipes that reached it (docs/reviewing.md). */
import { renderReviewPage } from "../../src/cli/review/page.js";
import type { PendingValue } from "../../src/cli/review/pending.js";
import type { TapRecord } from "../../src/core/store/tap-record.js";

const now = "2026-01-01T00:00:00.000Z";
const record: TapRecord = {
  format: 2,
  kind: "tap",
  prompt: "the Place order button",
  verify: null,
  device: {
    platform: "android",
    model: "Google Pixel 7",
    osVersion: "14",
    screen: { width: 1080, height: 2400 },
    scale: 2.625,
    insets: { top: 63, bottom: 42, left: 0, right: 0 },
    orientation: "portrait",
  },
  point: { x: 540, y: 2000 },
  box: { x: 42, y: 1930, width: 998, height: 138 },
  crop: { x: 31, y: 1919, width: 1019, height: 159 },
  model: "test-double:scripted",
  reason: "scripted",
  imageSha256: "0".repeat(64),
  storedAt: now,
  createdAt: now,
  review: { state: "pending" },
  scroll: {
    direction: "down",
    swipes: 3,
    swipe: { from: { x: 541, y: 1786 }, to: { x: 541, y: 637 }, durationMs: 800 },
  },
};

function pending(tap: TapRecord): PendingValue {
  const key = "taps/android/google-pixel-7_14/the-place-order-button-0123456789";
  return {
    change: "new",
    entry: {
      kind: "tap",
      subject: tap.prompt,
      record: tap,
      key,
      platform: "android",
      device: "google-pixel-7_14",
      files: { json: `${key}.json`, png: `${key}.png` } as never,
      modifiedAt: new Date(now),
      lastUsed: new Date(now),
    },
  };
}

test("a scroll tap's card names the swipes its crop was taken after", () => {
  const html = renderReviewPage({
    values: [pending(record)],
    storage: "storage",
    token: "token",
    nonce: "nonce",
    imageUrl: (key, file) => `/${key}.${file}`,
  });
  expect(html).toContain('data-testid="swipes"');
  expect(html).toContain(
    "crop of the screen after 3 swipes down from the start (each from (541, 1786) to (541, 637) over 800 ms)",
  );
});

test("a plain tap's card has no swipes line", () => {
  const { scroll: _scroll, ...plain } = record;
  const html = renderReviewPage({
    values: [pending(plain)],
    storage: "storage",
    token: "token",
    nonce: "nonce",
    imageUrl: (key, file) => `/${key}.${file}`,
  });
  expect(html).not.toContain('data-testid="swipes"');
});
