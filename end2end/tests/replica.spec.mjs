// Two replicas on one PostgreSQL database behind a load balancer without sticky sessions.
// The spec starts its own two `runlens serve --database-url` and a TCP load
// balancer in front of them that hands each new connection to the next live replica. The
// browser signs in (on whichever replica) and goes on across both; a chart and the Logs tab
// follow what is logged straight to replica A, while the page's streams may be on B; then A
// is killed mid-stream, the balancer sends the reconnect to B, and the page carries on with
// no line missing or doubled.
//
// Runs only with RUNLENS_E2E_DATABASE_URL (an empty PostgreSQL database; scripts/test.sh's
// e2e-replica step makes one); skipped otherwise.
import { test, expect } from '@playwright/test';
import net from 'node:net';
import { cli, freePort, runlensPaths, startRunlens } from '../server.mjs';

const DB = process.env.RUNLENS_E2E_DATABASE_URL;
const ADMIN = { username: 'admin', password: 'e2e-replica-admin-pw-4Rf8' };
const ALICE = { username: 'alice', password: 'e2e-replica-alice-pw-9Lp2' };

test.skip(!DB, 'needs RUNLENS_E2E_DATABASE_URL (a PostgreSQL database)');

/**
 * A TCP load balancer on a free port: each new connection goes to the next backend in
 * rotation. `route(ports)` changes the rotation and cuts the connections to backends left
 * out (as when a machine dies, or a balancer drains it).
 */
async function balancer(ports) {
  let live = new Set(ports);
  const served = Object.fromEntries(ports.map((p) => [p, 0]));
  const sockets = new Map(ports.map((p) => [p, new Set()]));
  let next = 0;
  const server = net.createServer((client) => {
    const up = ports.filter((p) => live.has(p));
    const port = up[next++ % up.length];
    served[port] += 1;
    const backend = net.connect(port, '127.0.0.1');
    sockets.get(port).add(backend).add(client);
    const close = () => {
      client.destroy();
      backend.destroy();
    };
    client.on('error', close).on('close', close);
    backend.on('error', close).on('close', close);
    client.pipe(backend).pipe(client);
  });
  const port = await freePort();
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    route(only) {
      live = new Set(only);
      for (const p of ports.filter((q) => !live.has(q))) {
        for (const s of sockets.get(p)) s.destroy();
        sockets.get(p).clear();
      }
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

test('two replicas behind a balancer: sign in once, follow a chart and logs, survive losing one', async ({ browser }) => {
  test.setTimeout(180_000);
  const { bin } = runlensPaths();
  const flags = ['--database-url', DB];
  const a = await startRunlens({ args: flags, env: { RUNLENS_ADMIN_PASSWORD: ADMIN.password } });
  const b = await startRunlens({ dataDir: a.dataDir, args: flags });
  cli(bin, a.dataDir, [...flags, 'user', 'add', ALICE.username, '--password-stdin'], `${ALICE.password}\n`);
  const token = cli(bin, a.dataDir, [...flags, 'token', 'create', '--user', 'alice', '--name', 'replica']).trim();
  const lb = await balancer([a.port, b.port]);
  // Writes go straight to replica A, as a training script pointed at it would.
  const onA = async (path, data) => {
    const r = await fetch(`${a.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(data),
    });
    const text = await r.text();
    expect(r.ok, `${path}: ${r.status} ${text}`).toBe(true);
    return JSON.parse(text);
  };
  try {
    // Sign in on A; then the balancer sends everything to B, where the session holds.
    lb.route([a.port]);
    const context = await browser.newContext({ baseURL: lb.url });
    const page = await context.newPage();
    await page.goto('/');
    await expect(page).toHaveURL(/\/signin/);
    await page.getByLabel('Username').fill(ALICE.username);
    await page.getByLabel('Password').fill(ALICE.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('button', { name: ALICE.username })).toBeVisible();
    lb.route([b.port]);

    // A running run's chart, served by B: points logged on A are drawn (the replicas share
    // the live bus).
    const t0 = Date.now() - 60_000;
    const { experiment_id: exp } = await onA('/api/2.0/mlflow/experiments/create', { name: '/Users/alice/replicas' });
    const { run } = await onA('/api/2.0/mlflow/runs/create', { experiment_id: exp, run_name: 'replicated', start_time: t0 });
    const id = run.info.run_id;
    const log = (from, n) => {
      const metrics = [];
      for (let s = from; s < from + n; s++) metrics.push({ key: 'loss', value: 1 / (s + 1), timestamp: t0 + s * 100, step: s });
      return onA('/api/2.0/mlflow/runs/log-batch', { run_id: id, metrics });
    };
    await log(0, 20);
    await page.goto(`/experiments/${exp}?view=charts&sel=${id}`);
    const loss = page.getByTestId('chart-loss');
    await expect(loss).toHaveAttribute('data-points', '20');
    await expect(page.locator('.wcharts')).toHaveAttribute('data-live', 'true');
    await log(20, 5);
    await expect.poll(async () => Number(await loss.getAttribute('data-points')), { timeout: 3_000, intervals: [100] }).toBe(25);

    // The Logs tab of a job run's attempt follows lines shipped to A.
    const job = await onA('/api/v1/jobs', { name: 'replica-job' });
    const jr = await onA(`/api/v1/jobs/${job.job_id}/runs`, { experiment_id: exp, nodes: ['n0'], max_retries: 0 });
    const attempt = await onA(`/api/v1/job-runs/${jr.job_run_id}/attempts`, {});
    let seq = 0;
    const ship = async (n, url = a.url) => {
      const lines = Array.from({ length: n }, (_, k) => ({ ts_ms: t0 + (seq + k) * 10, stream: 'stdout', text: `line ${seq + k}` }));
      const r = await fetch(`${url}/api/v1/job-runs/${jr.job_run_id}/attempts/1/logs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ node: 'n0', first_seq: seq, lines }),
      });
      expect(r.ok, await r.text()).toBe(true);
      seq += n;
    };
    // The Logs tab, on A this time.
    lb.route([a.port]);
    await page.goto(`/runs/${attempt.run_id}?tab=logs`);
    await expect(page.getByText('Following', { exact: true })).toBeVisible();
    await ship(30);
    await expect(page.getByTestId('log-count')).toHaveText('30 lines');
    await expect(page.getByText('line 29', { exact: true })).toBeInViewport();

    // Replica A dies mid-stream: the balancer cuts its connections and sends the page's
    // reconnect to B, which resumes from the stream's last id.
    await a.stop({ keep: true, signal: 'SIGKILL' });
    lb.route([b.port]);
    await ship(10, b.url);
    await expect(page.getByTestId('log-count')).toHaveText('40 lines', { timeout: 10_000 });
    await expect(page.getByText('line 39', { exact: true })).toBeInViewport();
    // The lines in view run on without a gap or a repeat across the switch (29 → 30).
    const texts = await page.locator('.log-line .log-text').allInnerTexts();
    const numbers = texts.map((t) => Number(t.replace('line ', '')));
    expect(numbers).toContain(29);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, k) => numbers[0] + k));
    expect(numbers.at(-1)).toBe(39);
    // Both replicas served this browser.
    expect(lb.served[a.port]).toBeGreaterThan(0);
    expect(lb.served[b.port]).toBeGreaterThan(0);
    await expect(page.getByRole('button', { name: ALICE.username })).toBeVisible();
    await context.close();
  } finally {
    await lb.close();
    await b.stop();
    await a.stop();
  }
});
