/**
 * A real S3 implementation for tests, started by the tests themselves: Debian's Ceph RADOS Gateway
 * (packages radosgw, ceph-mon, ceph-osd; scripts/ceph-rgw.sh installs them) on one monitor and one OSD
 * with the in-memory `memstore` object store, all on 127.0.0.1 with authentication off, in a temporary
 * folder, on free ports. Each daemon runs in the foreground under a small shell guard that kills it when
 * this process closes the guard's stdin, so a test process that dies (even by SIGKILL) leaves no daemon.
 * A machine without the packages fails the tests that need it with how to install them, unless
 * TAPSHOT_SKIP_CEPH=1 opts out (CONTRIBUTING.md).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { freePort } from "../../rig/ports.js";

const run = promisify(execFile);

/** The S3 user's keys, made with `radosgw-admin user create` on every fresh cluster. */
export const CEPH_CREDENTIALS = { accessKeyId: "TAPSHOTCEPHTEST", secretAccessKey: "tapshot-ceph-test-secret" };

/** A running gateway: point a client at `endpoint` with path-style URLs and {@link CEPH_CREDENTIALS}. */
export interface CephRgw {
  endpoint: string;
  bucket: string;
  /** How long the monitor, OSD, gateway and user took to come up, in ms. */
  startMs: number;
  stop(): Promise<void>;
}

const BINARIES = ["ceph-mon", "ceph-osd", "radosgw", "radosgw-admin", "ceph", "monmaptool"];

/** True when the tests are told to leave Ceph out (a machine that cannot install it). */
export const cephSkipped = process.env.TAPSHOT_SKIP_CEPH === "1";

function missingBinaries(): string[] {
  const dirs = (process.env.PATH ?? "").split(path.delimiter).concat(["/usr/bin", "/usr/sbin"]);
  return BINARIES.filter((name) => !dirs.some((dir) => existsSync(path.join(dir, name))));
}

/** The configuration of one throwaway cluster in `dir`. */
function cephConf(dir: string, fsid: string, monPort: number, rgwPort: number): string {
  return `[global]
fsid = ${fsid}
mon_host = v2:127.0.0.1:${monPort}
public_addr = 127.0.0.1
ms_bind_msgr1 = false
# Authentication off. Without cephx the connection modes must be crc: their default also offers
# "secure", which a daemon cannot pick without keys, and radosgw then fails to fetch its mon config.
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
ms_mon_client_mode = crc
ms_client_mode = crc
ms_mon_cluster_mode = crc
ms_cluster_mode = crc
ms_service_mode = crc
ms_mon_service_mode = crc
keyring = /dev/null
run_dir = ${dir}/run
admin_socket = ${dir}/run/$name.asok
log_file = ${dir}/log/$name.log
pid_file = ${dir}/run/$name.pid
mon_data = ${dir}/mon/$name
osd_data = ${dir}/osd/$name
# One OSD holding everything in memory: pools of size 1, no CRUSH host spread.
osd_objectstore = memstore
memstore_device_bytes = 1073741824
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_crush_chooseleaf_type = 0
osd_pool_default_pg_autoscale_mode = off
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
mon_data_avail_crit = 0
# Quick map changes: radosgw creates its pools one after the other at start.
paxos_propose_interval = 0.05
paxos_min_wait = 0.01
client_mount_timeout = 20
rados_mon_op_timeout = 20
rgw_data = ${dir}/rgw
# Without tcp_nodelay each answer waits ~40 ms on Nagle and delayed ACKs (docs/device-farms.md).
rgw_frontends = beast endpoint=127.0.0.1:${rgwPort} tcp_nodelay=1
rgw_thread_pool_size = 32
rgw_dns_name = 127.0.0.1
`;
}

/**
 * A daemon in the foreground under a guard that kills it when our end of its stdin closes: at stop(), or when
 * this process dies. SIGKILL is enough, since the cluster's data lives in memory and is thrown away.
 */
function daemon(args: string[], dir: string): ChildProcess {
  // Without job control bash gives a background command /dev/null as stdin, hence the copy in fd 3.
  const guard =
    'exec 3<&0; "$@" </dev/null >/dev/null 2>&1 & pid=$!; { cat <&3 >/dev/null; kill -9 "$pid"; } 2>/dev/null & wait "$pid"';
  return spawn("bash", ["-c", guard, "guard", ...args], { cwd: dir, stdio: ["pipe", "ignore", "ignore"] });
}

async function stopDaemon(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdin?.end();
  await exited;
}

async function ceph(conf: string, args: string[], timeoutMs = 30_000): Promise<string> {
  const [command, ...rest] = args;
  const { stdout } = await run(command!, ["-c", conf, ...rest], { timeout: timeoutMs, killSignal: "SIGKILL" });
  return stdout;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, logs: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`${what} did not happen within ${timeoutMs / 1000} s (logs in ${logs}).`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The last lines of each daemon's log, for a start that failed (the folder is removed after). */
async function logTails(logs: string): Promise<string> {
  const names = await fs.readdir(logs).catch(() => [] as string[]);
  const parts = await Promise.all(
    names.map(async (name) => {
      const lines = (await fs.readFile(path.join(logs, name), "utf8")).trimEnd().split("\n");
      return `--- ${name}\n${lines.slice(-8).join("\n")}`;
    }),
  );
  return parts.join("\n");
}

/**
 * Start a one-OSD cluster and its gateway with one S3 user and one empty bucket. Throws, saying how to
 * install the packages, on a machine without them.
 */
export async function startCephRgw(bucket = "tapshot-test"): Promise<CephRgw> {
  const missing = missingBinaries();
  if (missing.length > 0) {
    throw new Error(
      `The S3 tests run against Ceph's RADOS Gateway, but ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} ` +
        `not installed. Install Debian's packages with "sudo bash scripts/ceph-rgw.sh" (or "sudo bash scripts/setup.sh"), ` +
        `or set TAPSHOT_SKIP_CEPH=1 to run only the S3 replica (CONTRIBUTING.md).`,
    );
  }
  const started = Date.now();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-ceph-"));
  const daemons: ChildProcess[] = [];
  // The gateway first, the monitor last, so that no daemon waits on one already gone.
  const stop = async () => {
    for (const child of [...daemons].reverse()) await stopDaemon(child);
    await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    const [monPort, rgwPort] = [await freePort(), await freePort()];
    const fsid = randomUUID();
    const osdUuid = randomUUID();
    const conf = path.join(dir, "ceph.conf");
    // memstore needs the OSD's folder (osd_data, $name is "osd.0") to exist before mkfs.
    for (const sub of ["run", "log", "mon", "osd/osd.0", "rgw"])
      await fs.mkdir(path.join(dir, sub), { recursive: true });
    await fs.writeFile(conf, cephConf(dir, fsid, monPort, rgwPort));
    const logs = path.join(dir, "log");

    const monmap = path.join(dir, "monmap");
    await run("monmaptool", ["--create", "--addv", "a", `[v2:127.0.0.1:${monPort}]`, "--fsid", fsid, monmap]);
    await ceph(conf, ["ceph-mon", "--mkfs", "-i", "a", "--monmap", monmap]);
    daemons.push(daemon(["ceph-mon", "-f", "-c", conf, "-i", "a"], dir));

    const osdId = (await ceph(conf, ["ceph", "osd", "new", osdUuid])).trim();
    await ceph(conf, ["ceph-osd", "-i", osdId, "--mkfs", "--osd-uuid", osdUuid]);
    daemons.push(daemon(["ceph-osd", "-f", "-c", conf, "-i", osdId], dir));
    daemons.push(daemon(["radosgw", "-f", "-c", conf, "-n", "client.rgw"], dir));

    const endpoint = `http://127.0.0.1:${rgwPort}`;
    await waitFor(
      "the gateway answering on " + endpoint,
      async () => {
        const gone = daemons.find((child) => child.exitCode !== null);
        if (gone) throw new Error(`${gone.spawnargs[4]} exited with code ${gone.exitCode}`);
        return (await fetch(endpoint, { signal: AbortSignal.timeout(1000) }).catch(() => null))?.ok ?? false;
      },
      60_000,
      logs,
    );
    await ceph(conf, [
      "radosgw-admin",
      "user",
      "create",
      "--uid",
      "tapshot",
      "--display-name",
      "tapshot tests",
      "--access-key",
      CEPH_CREDENTIALS.accessKeyId,
      "--secret",
      CEPH_CREDENTIALS.secretAccessKey,
    ]);
    const client = new S3Client(cephClientConfig(endpoint));
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    client.destroy();
    return { endpoint, bucket, startMs: Date.now() - started, stop };
  } catch (error) {
    const tails = await logTails(path.join(dir, "log"));
    await stop();
    throw new Error(`Ceph RGW did not start: ${(error as Error).message}\n${tails}`, { cause: error });
  }
}

/** The S3 client options the tests use against {@link CephRgw}: the SDK's defaults, path-style URLs. */
export function cephClientConfig(endpoint: string) {
  return { endpoint, region: "us-east-1", forcePathStyle: true, credentials: CEPH_CREDENTIALS };
}
