/** The machine a benchmark run came from, recorded beside its numbers. */
import os from "node:os";

/** What results.json records about the machine. */
export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  platform: string;
  release: string;
  date: string;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    release: os.release(),
    date: new Date().toISOString(),
  };
}
