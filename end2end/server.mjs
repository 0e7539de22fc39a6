// Starting and stopping a `runlens serve` for the browser tests: used by global-setup.mjs for
// the shared server, and by specs that need a server of their own with other flags (such as
// `--trusted-user-header`), on a free loopback port with a temporary data dir.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const targetDir = path.resolve(root, process.env.CARGO_TARGET_DIR || 'target');

/**
 * The server binary, the built app and the python of the venv: RUNLENS_BIN (default
 * ../target/release/runlens), RUNLENS_DIST (default ../dist), RUNLENS_PYTHON (default
 * ../.venv/bin/python).
 */
export function runlensPaths() {
  return {
    bin: process.env.RUNLENS_BIN || path.join(targetDir, 'release', 'runlens'),
    dist: process.env.RUNLENS_DIST || path.join(root, 'dist'),
    python: process.env.RUNLENS_PYTHON || path.join(root, '.venv', 'bin', 'python'),
  };
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** GET `url` over https trusting the PEM CA `ca`; resolves to the status (rejects on failure). */
export function httpsStatus(url, ca) {
  return new Promise((resolve, reject) => {
    https.get(url, { ca }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
}

async function waitHealthy(url, proc, timeoutMs, ca) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) return false;
    try {
      if (ca) {
        if ((await httpsStatus(`${url}/health`, ca)) === 200) return true;
      } else {
        const r = await fetch(`${url}/health`);
        if (r.ok) return true;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** Runs the runlens CLI on a data dir; returns its stdout. */
export function cli(bin, dataDir, args, input) {
  return execFileSync(bin, ['--data-dir', dataDir, ...args], {
    input,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, RUNLENS_LOG: 'warn' },
  });
}

/**
 * Starts `runlens serve` on a free loopback port and waits for `/health`.
 * `dataDir` defaults to a new temporary directory (removed by `stop`), `args` are extra
 * `serve` flags, `env` extra environment (e.g. RUNLENS_ADMIN_PASSWORD), `ca` the PEM text of
 * the CA that signed the certificate of `--tls-cert` among `args` (the URL is then
 * `https://localhost:PORT`, the name that certificate must carry). Returns
 * `{ url, port, dataDir, logPath, stop }`; `stop` sends SIGTERM (or `signal`; SIGKILL after
 * 10 s), and may be called again later (`keep: true` keeps the temp dir until then).
 */
export async function startRunlens({ dataDir, args = [], env = {}, logLevel = 'warn', ca } = {}) {
  const { bin, dist } = runlensPaths();
  for (const [what, p] of [['server binary', bin], ['built app', path.join(dist, 'index.html')]]) {
    if (!fs.existsSync(p)) throw new Error(`missing ${what}: ${p} (run make build / scripts/install-tools.sh)`);
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'runlens-e2e-'));
  const dir = dataDir || path.join(tmp, 'data');
  const logPath = path.join(tmp, 'runlens.log');
  const log = fs.openSync(logPath, 'a');
  const port = await freePort();
  const url = ca ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;
  const proc = spawn(bin, ['serve', '--addr', `127.0.0.1:${port}`, '--data-dir', dir, '--dist', dist, ...args], {
    stdio: ['ignore', log, log],
    env: { ...process.env, RUNLENS_LOG: process.env.RUNLENS_LOG || logLevel, ...env },
  });
  let logOpen = true;
  const running = () => proc.exitCode === null && proc.signalCode === null;
  const stop = async ({ keep = false, signal = 'SIGTERM' } = {}) => {
    if (running()) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill(signal);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (running()) proc.kill('SIGKILL');
    }
    if (logOpen) fs.closeSync(log);
    logOpen = false;
    if (!keep) fs.rmSync(tmp, { recursive: true, force: true });
  };
  if (!(await waitHealthy(url, proc, 30_000, ca))) {
    const tail = fs.readFileSync(logPath, 'utf8').slice(-4000);
    await stop();
    throw new Error(`runlens did not become healthy; log:\n${tail}`);
  }
  return { url, port, dataDir: dir, tmp, logPath, stop };
}
