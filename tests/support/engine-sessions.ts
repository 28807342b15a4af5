/**
 * An adapter called the way the engine calls it: one session per driver object, opened once,
 * described before it taps. Adapter contract tests call this instead of reaching into the engine.
 */
import type {
  AdapterNote,
  DeviceAdapter,
  DeviceDescription,
  DeviceSession,
  Point,
  Swipe,
} from "../../src/core/device/description.js";

export function engineSessions(adapter: DeviceAdapter) {
  const sessions = new WeakMap<object, DeviceSession>();
  const sessionOf = (driver: unknown) => {
    let session = sessions.get(driver as object);
    if (!session) sessions.set(driver as object, (session = adapter.open(driver)));
    return session;
  };
  return {
    /** Open a session, which checks the driver. */
    assertDriver: (driver: unknown) => void adapter.open(driver),
    describe: (driver: unknown, note: AdapterNote) => sessionOf(driver).describe(note),
    screenshot: (driver: unknown) => sessionOf(driver).screenshot(),
    /** The session's page source; fails where the adapter serves none. */
    pageSource: (driver: unknown) => sessionOf(driver).pageSource!(),
    /** Taps use what the session's last describe read, which is `device` (unused here). */
    tap: (driver: unknown, point: Point, _device?: DeviceDescription) => sessionOf(driver).tap(point),
    /** Swipes, like taps, use what the session's last describe read. */
    swipe: (driver: unknown, swipe: Swipe) => sessionOf(driver).swipe!(swipe),
  };
}
