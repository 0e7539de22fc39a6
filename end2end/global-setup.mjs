// Starts `runlens serve` on a free loopback port with a temporary data dir and the built app,
// seeds it through the stock mlflow client (seed.py), and hands the URL and the seeded ids
// to the tests through the environment. Returns the teardown.
//
// Auth: before the first start, `runlens user add` creates the accounts of users.mjs and
// `runlens token create` an API token for alice (seed.py logs with it as
// MLFLOW_TRACKING_TOKEN, so alice owns the seeded experiments); the server bootstraps
// `admin` from RUNLENS_ADMIN_PASSWORD. It serves with --embed-origin so the security
// checks can see the framing rule of /embed/ pages.
//
// Environment: RUNLENS_BIN (default ../target/release/runlens), RUNLENS_DIST (default ../dist),
// RUNLENS_PYTHON (default ../.venv/bin/python).
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN, USERS } from './users.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const targetDir = path.resolve(root, process.env.CARGO_TARGET_DIR || 'target');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitHealthy(url, proc, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) return false;
    try {
      const r = await fetch(`${url}/health`);
      if (r.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** Origin allowed to frame /embed/ pages (checked by security.spec.mjs). */
const EMBED_ORIGIN = 'https://notebooks.example.com';

/** Runs the runlens CLI on the data dir; returns its stdout. */
function cli(bin, dataDir, args, input) {
  return execFileSync(bin, ['--data-dir', dataDir, ...args], {
    input,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, RUNLENS_LOG: 'warn' },
  });
}

/** Creates the test accounts and alice's seeding token; returns the token. */
function createAccounts(bin, dataDir) {
  for (const u of Object.values(USERS)) {
    cli(bin, dataDir, ['user', 'add', u.username, '--password-stdin'], `${u.password}\n`);
  }
  return cli(bin, dataDir, ['token', 'create', '--user', 'alice', '--name', 'e2e-seed']).trim();
}

export default async function globalSetup() {
  const bin = process.env.RUNLENS_BIN || path.join(targetDir, 'release', 'runlens');
  const dist = process.env.RUNLENS_DIST || path.join(root, 'dist');
  const python = process.env.RUNLENS_PYTHON || path.join(root, '.venv', 'bin', 'python');
  for (const [what, p] of [['server binary', bin], ['built app', path.join(dist, 'index.html')], ['python', python]]) {
    if (!fs.existsSync(p)) throw new Error(`missing ${what}: ${p} (run make build / scripts/install-tools.sh)`);
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'runlens-e2e-'));
  const logPath = path.join(tmp, 'runlens.log');
  const log = fs.openSync(logPath, 'a');
  const dataDir = path.join(tmp, 'data');
  let aliceToken;
  try {
    aliceToken = createAccounts(bin, dataDir);
  } catch (e) {
    throw new Error(`creating the test accounts failed: ${e.message}\n${e.stderr || ''}`);
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = ['serve', '--addr', `127.0.0.1:${port}`, '--data-dir', dataDir, '--dist', dist, '--embed-origin', EMBED_ORIGIN];
  const proc = spawn(bin, args, {
    stdio: ['ignore', log, log],
    // info, so the check that no secret reaches the log has a log to read.
    env: { ...process.env, RUNLENS_LOG: process.env.RUNLENS_LOG || 'info', RUNLENS_ADMIN_PASSWORD: ADMIN.password },
  });
  const stop = async () => {
    if (proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  };
  if (!(await waitHealthy(url, proc, 30_000))) {
    await stop();
    throw new Error(`runlens did not become healthy; log:\n${fs.readFileSync(logPath, 'utf8').slice(-4000)}`);
  }
  let seed;
  try {
    const out = execFileSync(python, [path.join(here, 'seed.py')], {
      env: { ...process.env, MLFLOW_TRACKING_URI: url, MLFLOW_TRACKING_TOKEN: aliceToken, MLFLOW_HTTP_REQUEST_MAX_RETRIES: '0' },
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    seed = JSON.parse(out.trim().split('\n').pop());
  } catch (e) {
    await stop();
    throw new Error(`seeding failed: ${e.message}\nserver log:\n${fs.readFileSync(logPath, 'utf8').slice(-4000)}`);
  }
  process.env.RUNLENS_E2E_URL = url;
  process.env.RUNLENS_E2E_SEED = JSON.stringify(seed);
  process.env.RUNLENS_E2E_LOG = logPath;
  process.env.RUNLENS_E2E_EMBED_ORIGIN = EMBED_ORIGIN;
  process.env.RUNLENS_E2E_SECRET_TOKENS = JSON.stringify([aliceToken]);
  return async () => {
    await stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  };
}
