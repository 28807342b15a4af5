/*
 * One MCP session's state: the open device, the `start_session` arguments that opened it, and the
 * steps that succeeded on it, in order (what `write_test` writes). A second `start_session` ends the
 * first; the steps start again with the new session.
 */
import { DeviceError } from "../errors.js";
import { configureAi, type LogEntry } from "../runner/index.js";
import type { McpDevice } from "./device.js";

/** How `start_session` opened the device: what a written test opens again. */
export type StartArguments =
  { demo: true; screen?: string } | { appiumUrl: string; capabilities: Record<string, unknown> };

/** One step that succeeded: the tool, its arguments as the agent gave them (values by reference only). */
export interface Step {
  tool: "tap" | "find" | "act" | "satisfy" | "match_screenshot";
  args: Record<string, unknown>;
}

/** The session a server drives, and the log entries of its calls. */
export class McpSession {
  private device: McpDevice | undefined;
  private started: StartArguments | undefined;
  readonly steps: Step[] = [];
  private lastEntry: LogEntry | undefined;

  /** Begin on a new device; the previous one, if any, is closed first. */
  async begin(args: StartArguments, open: () => Promise<McpDevice>): Promise<McpDevice> {
    await this.end();
    const device = await open();
    if (device.config) configureAi(device.config);
    this.device = device;
    this.started = args;
    this.steps.length = 0;
    return device;
  }

  /** The open device, or a DeviceError saying to call start_session. */
  current(): McpDevice {
    if (!this.device) throw new DeviceError("No session is open: call start_session first.");
    return this.device;
  }

  /** The arguments of the open session's start_session. */
  startArguments(): StartArguments {
    this.current();
    return this.started!;
  }

  /** Keep a succeeded step for write_test. */
  record(step: Step): void {
    this.steps.push(step);
  }

  /** Called with every log entry tapshot writes in this process. */
  logged(entry: LogEntry): void {
    this.lastEntry = entry;
  }

  /** Run one call and answer its log entry with its result (every public call writes exactly one). */
  async withEntry<T>(call: () => Promise<T>): Promise<{ result: T; entry: LogEntry | undefined }> {
    this.lastEntry = undefined;
    const result = await call();
    return { result, entry: this.lastEntry };
  }

  /** Close the device (a failing close is not an error of the next session). */
  async end(): Promise<boolean> {
    const device = this.device;
    this.device = undefined;
    this.started = undefined;
    if (!device) return false;
    await device.close().catch(() => undefined);
    return true;
  }
}
