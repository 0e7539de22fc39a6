// Starts `runlens serve` (server.mjs) on a free loopback port with a temporary data dir and
// the built app, seeds it through the stock mlflow client (seed.py), and hands the URL and
// the seeded ids to the tests through the environment. Returns the teardown.
//
// Auth: before the first start, `runlens user add` creates the accounts of users.mjs and
// `runlens token create` an API token for alice (seed.py logs with it as
// MLFLOW_TRACKING_TOKEN, so alice owns the seeded experiments); the server bootstraps
// `admin` from RUNLENS_ADMIN_PASSWORD.
//
// This server is not given `--embed-origin`: gpus.spec.mjs starts its own server with one
// and checks that the embed route renders inside a frame of that origin.
//
// Environment: RUNLENS_BIN (default ../target/release/runlens), RUNLENS_DIST (default ../dist),
// RUNLENS_PYTHON (default ../.venv/bin/python).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli, runlensPaths, startRunlens } from './server.mjs';
import { ADMIN, USERS } from './users.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Creates the test accounts and alice's seeding token; returns the token. */
function createAccounts(bin, dataDir) {
  for (const u of Object.values(USERS)) {
    cli(bin, dataDir, ['user', 'add', u.username, '--password-stdin'], `${u.password}\n`);
  }
  return cli(bin, dataDir, ['token', 'create', '--user', 'alice', '--name', 'e2e-seed']).trim();
}

export default async function globalSetup() {
  const { bin, python } = runlensPaths();
  if (!fs.existsSync(python)) throw new Error(`missing python: ${python} (run scripts/install-tools.sh)`);
  if (!fs.existsSync(bin)) throw new Error(`missing server binary: ${bin} (run make build)`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'runlens-e2e-data-'));
  const dataDir = path.join(tmp, 'data');
  let aliceToken;
  try {
    aliceToken = createAccounts(bin, dataDir);
  } catch (e) {
    throw new Error(`creating the test accounts failed: ${e.message}\n${e.stderr || ''}`);
  }
  // info, so the check that no secret reaches the log has a log to read.
  const server = await startRunlens({ dataDir, env: { RUNLENS_ADMIN_PASSWORD: ADMIN.password }, logLevel: 'info' });
  const teardown = async () => {
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  let seed;
  try {
    const out = execFileSync(python, [path.join(here, 'seed.py')], {
      env: { ...process.env, MLFLOW_TRACKING_URI: server.url, MLFLOW_TRACKING_TOKEN: aliceToken, MLFLOW_HTTP_REQUEST_MAX_RETRIES: '0' },
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    seed = JSON.parse(out.trim().split('\n').pop());
  } catch (e) {
    const log = fs.readFileSync(server.logPath, 'utf8').slice(-4000);
    await teardown();
    throw new Error(`seeding failed: ${e.message}\nserver log:\n${log}`);
  }
  process.env.RUNLENS_E2E_URL = server.url;
  process.env.RUNLENS_E2E_SEED = JSON.stringify(seed);
  process.env.RUNLENS_E2E_LOG = server.logPath;
  process.env.RUNLENS_E2E_SECRET_TOKENS = JSON.stringify([aliceToken]);
  return teardown;
}
