// The GPU panel of a node across machines over https, in Chromium: `runlens serve
// --tls-cert` with a CA made here (openssl), Chromium trusting that CA through its NSS
// database (certutil, as a company CA is trusted; no certificate error is ignored), and an
// agent holding only its node credential that registers over https and serves https itself,
// which the server polls. Chromium signs in on the https page and sees the node's GPUs live.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from './fixtures.mjs';
import { cli, freePort, httpsStatus, runlensPaths, startRunlens } from '../server.mjs';
import { ADMIN } from '../users.mjs';
import { agentBin } from '../agents.mjs';
import config from '../playwright.config.mjs';

test.use({ user: null });

const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });

/** A CA and certificates for `localhost` it signs (server, agent), as PEM files in `dir`. */
function makeCa(dir) {
  const f = (name) => path.join(dir, name);
  run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'),
    '-days', '2', '-subj', '/CN=runlens e2e CA', '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  fs.writeFileSync(f('leaf.ext'), 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  for (const name of ['server', 'agent']) {
    run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`),
      '-subj', '/CN=localhost']);
    run('openssl', ['x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key'),
      '-CAcreateserial', '-out', f(`${name}.crt`), '-days', '2', '-extfile', f('leaf.ext')]);
  }
  return { ca: f('ca.pem'), server: [f('server.crt'), f('server.key')], agent: [f('agent.crt'), f('agent.key')] };
}

/** A home folder whose NSS database (what Chromium on Linux trusts) holds the CA. */
function homeTrusting(dir, ca) {
  const home = path.join(dir, 'home');
  const db = path.join(home, '.pki', 'nssdb');
  fs.mkdirSync(db, { recursive: true });
  run('certutil', ['-d', `sql:${db}`, '-N', '--empty-password']);
  run('certutil', ['-d', `sql:${db}`, '-A', '-t', 'C,,', '-n', 'runlens e2e CA', '-i', ca]);
  return home;
}

test('the GPU panel shows an https agent of an https server in a browser that trusts the CA', async ({ playwright }) => {
  test.setTimeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runlens-tls-'));
  const certs = makeCa(dir);
  const caPem = fs.readFileSync(certs.ca);
  const runlens = await startRunlens({
    args: ['--tls-cert', certs.server[0], '--tls-key', certs.server[1], '--ca-cert', certs.ca],
    env: { RUNLENS_ADMIN_PASSWORD: ADMIN.password },
    ca: caPem,
  });
  let agent;
  let browser;
  try {
    // The node's credential, made by an admin on the server machine, in a 0600 file.
    const credential = cli(runlensPaths().bin, runlens.dataDir, ['node-credential', 'create', 'tls-node']).trim();
    const file = path.join(dir, 'node-credential');
    fs.writeFileSync(file, `${credential}\n`, { mode: 0o600 });
    const port = await freePort();
    const log = fs.openSync(path.join(dir, 'agent.log'), 'a');
    agent = spawn(agentBin(), ['serve', '--listen', `127.0.0.1:${port}`, '--node-name', 'tls-node',
      '--token', 'tls-agent-secret', '--simulate-gpus', '2', '--interval-secs', '1', '--heartbeat-secs', '1',
      '--server', runlens.url, '--credential-file', file, '--ca-cert', certs.ca,
      '--tls-cert', certs.agent[0], '--tls-key', certs.agent[1], '--advertise-url', `https://localhost:${port}`],
    { stdio: ['ignore', log, log], env: { ...process.env, RUNLENS_TOKEN: '', RUNLENS_SERVER: '' } });
    // The agent's own https answers (with its token) before the browser looks.
    await expect.poll(async () => httpsStatus(`https://localhost:${port}/v1/gpus`, caPem).catch(() => 0), { timeout: 20_000 })
      .toBe(401);

    const home = homeTrusting(dir, certs.ca);
    const { executablePath, args } = config.use.launchOptions;
    browser = await playwright.chromium.launch({ executablePath, args, env: { ...process.env, HOME: home } });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });

    await page.goto(`${runlens.url}/gpus?nodes=tls-node&poll=1`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('button', { name: ADMIN.username })).toBeVisible();
    // Signed out, the app's first look at the session is a 401 by design (it then shows the
    // sign-in page); everything after signing in must be clean.
    expect(errors.filter((e) => !e.includes('status of 401'))).toEqual([]);
    errors.length = 0;
    const card = page.getByTestId('node-tls-node');
    await expect(card).toHaveAttribute('data-state', 'live', { timeout: 30_000 });
    await expect(card.getByText('simulated', { exact: true })).toBeVisible();
    await expect(page.getByTestId('gpu-chart-tls-node-util')).toBeVisible();
    expect(new URL(page.url()).protocol).toBe('https:');
    await page.screenshot({ path: test.info().outputPath('gpus-over-https.png') });
    expect(errors, 'page and console errors').toEqual([]);
  } finally {
    if (browser) await browser.close();
    if (agent) agent.kill('SIGKILL');
    await runlens.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
