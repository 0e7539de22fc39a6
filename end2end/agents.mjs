// Simulated GPU agents for the browser tests and the screenshots: starts `runlens-agent
// serve --simulate-gpus N` on a free loopback port, and registers agents with a server as
// its admin (PUT /api/v1/nodes/{name}).
//
// Environment: RUNLENS_AGENT_BIN (default ../target/release/runlens-agent).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const targetDir = path.resolve(root, process.env.CARGO_TARGET_DIR || 'target');

/** The agent binary: RUNLENS_AGENT_BIN, else ../target/release/runlens-agent. */
export function agentBin() {
  return process.env.RUNLENS_AGENT_BIN || path.join(targetDir, 'release', 'runlens-agent');
}

/**
 * Starts `runlens-agent serve` with `gpus` simulated GPUs (0: the real ones, through NVML)
 * sampled every `interval` seconds
 * and waits until `GET /v1/gpus` answers. Returns `{ name, url, token, interval, kill, stop }`:
 * `kill` sends SIGKILL (a node that dies), `stop` SIGTERM.
 */
export async function startAgent({ name, token = `${name}-token`, gpus = 4, interval = 1, seed = 0 }) {
  const bin = agentBin();
  if (!fs.existsSync(bin)) throw new Error(`missing agent binary: ${bin} (cargo build --release -p agent)`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runlens-agent-')), 'agent.log');
  const log = fs.openSync(logPath, 'a');
  const args = ['serve', '--listen', `127.0.0.1:${port}`, '--node-name', name, '--token', token,
    '--seed', String(seed), '--interval-secs', String(interval)];
  // Without simulated GPUs the agent reads NVML, which a machine without the driver lacks.
  if (gpus > 0) args.push('--simulate-gpus', String(gpus));
  const proc = spawn(bin, args, { stdio: ['ignore', log, log] });
  const exited = new Promise((r) => proc.once('exit', r));
  const signal = async (sig) => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill(sig);
      await exited;
    }
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const r = await fetch(`${url}/v1/gpus`, { headers: { Authorization: `Bearer ${token}` } });
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (proc.exitCode !== null || Date.now() > deadline) {
      await signal('SIGKILL');
      throw new Error(`agent ${name} did not start; log:\n${fs.readFileSync(logPath, 'utf8').slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, url, token, interval, logPath, kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM') };
}

/**
 * Signs in to `baseURL` as `admin` on a new request context of `playwright` and returns
 * `{ api, csrf }`: `api` sends the session cookie, writes need `X-CSRF-Token: csrf`.
 */
export async function adminApi(playwright, baseURL, admin) {
  const api = await playwright.request.newContext({ baseURL });
  const r = await api.post('/api/v1/session', { data: admin });
  if (r.status() !== 200) throw new Error(`admin sign-in: ${r.status()} ${await r.text()}`);
  return { api, csrf: (await r.json()).csrf_token };
}

/** Registers `agent` with the server as a static node (PUT /api/v1/nodes/{name}). */
export async function registerAgent({ api, csrf }, agent) {
  const r = await api.put(`/api/v1/nodes/${agent.name}`, {
    data: { url: agent.url, token: agent.token, interval_secs: agent.interval },
    headers: { 'X-CSRF-Token': csrf },
  });
  if (r.status() !== 200) throw new Error(`registering ${agent.name}: ${r.status()} ${await r.text()}`);
  return r.json();
}

/** An API token of the signed-in user of `{ api, csrf }` (for the MLflow API). */
export async function createToken({ api, csrf }, name) {
  const r = await api.post('/api/v1/tokens', { data: { name }, headers: { 'X-CSRF-Token': csrf } });
  if (r.status() !== 200 && r.status() !== 201) throw new Error(`token: ${r.status()} ${await r.text()}`);
  return (await r.json()).token;
}

/**
 * Creates an experiment and a run through the MLflow REST API with `token`, tagged
 * `runlens.nodes = nodes.join(',')`. Returns the run id.
 */
export async function createTaggedRun(request, baseURL, token, { experiment, runName, nodes }) {
  const headers = { Authorization: `Bearer ${token}` };
  const call = async (p, data) => {
    const r = await request.post(`${baseURL}/api/2.0/mlflow/${p}`, { data, headers });
    if (!r.ok()) throw new Error(`${p}: ${r.status()} ${await r.text()}`);
    return r.json();
  };
  const { experiment_id } = await call('experiments/create', { name: experiment });
  const { run } = await call('runs/create', { experiment_id, run_name: runName, start_time: Date.now() });
  await call('runs/set-tag', { run_id: run.info.run_id, key: 'runlens.nodes', value: nodes.join(',') });
  return run.info.run_id;
}
