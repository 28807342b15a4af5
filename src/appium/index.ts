/*
 * What the Android and iOS adapters share (docs/design.md section 2): the slice of a WebdriverIO
 * session they use, session checks, reading capabilities, screenshots and their size, trying
 * sources in order with notes, and the W3C touch actions of taps and swipes. Platform details
 * live in the adapters (src/android, src/ios). Core knows no platform; this folder is where
 * WebdriverIO's types meet it.
 */
export * from "./session.js";
export * from "./readings.js";
export * from "./actions.js";
export * from "./adapter.js";
export * from "./element-rects.js";
export * from "./element-at.js";
export * from "./typing.js";
export * from "./dom-page-source.js";
