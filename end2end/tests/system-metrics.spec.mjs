// The run's System metrics tab: grouped charts for a run logged by the stock mlflow client
// with `log_system_metrics=True`, a node's GPUs overlaid per field (with a per-GPU toggle kept in
// the URL) for a run launched by `runlens-agent run --simulate-gpus`, the empty state's advice, and a RUNNING run whose
// new system metrics (two nodes, with the node filter) appear without a reload.
import { execFileSync } from 'node:child_process';
import { test, expect } from './fixtures.mjs';
import { runlensPaths } from '../server.mjs';
import { agentBin } from '../agents.mjs';

const aliceToken = () => JSON.parse(process.env.RUNLENS_E2E_SECRET_TOKENS)[0];

/** Calls the MLflow REST API as alice. */
async function mlflow(request, path, data) {
  const r = await request.post(`/api/2.0/mlflow/${path}`, { data, headers: { Authorization: `Bearer ${aliceToken()}` } });
  expect(r.ok(), `${path}: ${await r.text()}`).toBeTruthy();
  return r.json();
}

const chart = (page, key) => page.getByTestId(`chart-${key}`);
const section = (page, title) => page.getByRole('heading', { level: 2, name: title, exact: true });

test('a run logged with log_system_metrics=True shows CPU, memory, disk and network charts', async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  const script = [
    'import time, mlflow',
    'mlflow.set_experiment("/Users/alice/e2e-system")',
    'with mlflow.start_run(run_name="sysmetrics-run", log_system_metrics=True) as run:',
    '    time.sleep(6)',
    'print(run.info.run_id)',
  ].join('\n');
  const out = execFileSync(runlensPaths().python, ['-c', script], {
    env: {
      ...process.env,
      MLFLOW_TRACKING_URI: baseURL,
      MLFLOW_TRACKING_TOKEN: aliceToken(),
      MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL: '1',
      MLFLOW_SYSTEM_METRICS_SAMPLES_BEFORE_LOGGING: '1',
      MLFLOW_HTTP_REQUEST_MAX_RETRIES: '0',
    },
    encoding: 'utf8',
  });
  const runId = out.trim().split('\n').pop();
  await page.goto(`/runs/${runId}?tab=system`);
  await expect(page.getByRole('tab', { name: 'System metrics' })).toHaveAttribute('aria-selected', 'true');
  for (const title of ['CPU', 'Memory', 'Disk', 'Network']) await expect(section(page, title)).toBeVisible();
  const cpu = chart(page, 'system/cpu_utilization_percentage');
  await expect(cpu).toHaveAttribute('data-status', 'drawn');
  expect(Number(await cpu.getAttribute('data-points'))).toBeGreaterThan(0);
  await expect(chart(page, 'system/system_memory_usage_megabytes')).toHaveAttribute('data-status', 'drawn');
  await expect(chart(page, 'system/network_receive_megabytes')).toHaveAttribute('data-status', 'drawn');
  // The sections come in order: CPU before memory before disk before network.
  const order = await page.locator('.system-section h2').allTextContents();
  expect(order.map((t) => t.toUpperCase())).toEqual(['CPU', 'MEMORY', 'DISK', 'NETWORK']);

  await page.getByRole('button', { name: 'Wall time' }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get('x')).toBe('wall');
  await expect(cpu).toHaveAttribute('data-status', 'drawn');
  // The Metrics tab sends system metrics here.
  await page.getByRole('tab', { name: 'Metrics', exact: true }).click();
  await page.getByRole('button', { name: 'Show them' }).click();
  await expect(page.getByRole('tab', { name: 'System metrics' })).toHaveAttribute('aria-selected', 'true');
});

test('a run launched by runlens-agent run overlays its GPUs per field, each GPU toggled in every chart', async ({ page, baseURL, request }) => {
  test.setTimeout(90_000);
  execFileSync(agentBin(), [
    'run', '--server', baseURL, '--experiment', '/Users/alice/e2e-agent-system', '--run-name', 'agent-run',
    '--node-name', 'sim-node', '--interval-secs', '1', '--simulate-gpus', '2', '--', 'sleep', '4',
  ], { env: { ...process.env, RUNLENS_TOKEN: aliceToken() }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const { experiment } = await (await request.get('/api/2.0/mlflow/experiments/get-by-name?experiment_name=/Users/alice/e2e-agent-system', {
    headers: { Authorization: `Bearer ${aliceToken()}` },
  })).json();
  const { runs } = await mlflow(request, 'runs/search', { experiment_ids: [experiment.experiment_id] });
  const runId = runs[0].info.run_id;
  await page.goto(`/runs/${runId}?tab=system`);
  for (const title of ['GPUs', 'CPU', 'Memory']) await expect(section(page, title)).toBeVisible();
  // One chart per field with a line per GPU (not one section per GPU), in two colours.
  const fields = ['utilization_percentage', 'temperature_celsius', 'memory_usage_megabytes'];
  for (const field of fields) {
    const c = chart(page, `system/sim-node/gpu_*_${field}`);
    await expect(c).toHaveAttribute('data-status', 'drawn');
    await expect(c).toHaveAttribute('data-lines', '2');
    expect(new Set((await c.getAttribute('data-colors')).split(',')).size).toBe(2);
  }
  await expect(chart(page, 'system/sim-node/gpu_1_utilization_percentage')).toHaveCount(0);
  const util = chart(page, 'system/sim-node/gpu_*_utilization_percentage');
  const colors = (await util.getAttribute('data-colors')).split(',');

  // Hiding GPU 1 hides it in every chart of the node, keeps GPU 0's colour, and is in the link.
  await page.getByRole('checkbox', { name: 'GPU 1' }).uncheck();
  for (const field of fields) await expect(chart(page, `system/sim-node/gpu_*_${field}`)).toHaveAttribute('data-lines', '1');
  await expect(util).toHaveAttribute('data-colors', colors[0]);
  await expect.poll(() => new URL(page.url()).searchParams.getAll('hide_gpu')).toEqual(['sim-node:1']);
  await page.reload();
  await expect(util).toHaveAttribute('data-lines', '1');
  await expect(page.getByRole('checkbox', { name: 'GPU 1' })).not.toBeChecked();
  await page.getByRole('checkbox', { name: 'GPU 1' }).check();
  await expect(util).toHaveAttribute('data-lines', '2');
  await expect.poll(() => new URL(page.url()).searchParams.getAll('hide_gpu')).toEqual([]);

  // The tooltip lists every GPU's value under the cursor, highest first.
  const box = await util.boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  const rows = page.getByRole('tooltip').locator('.tt-run');
  await expect(rows).toHaveCount(2);
  const values = (await rows.locator('.mono').allTextContents()).map(Number);
  expect(values[0]).toBeGreaterThanOrEqual(values[1]);
  // The run names its node, so the run page offers the live panel too.
  await expect(page.getByRole('button', { name: 'GPUs', exact: true })).toBeVisible();
});

test('a run without system metrics explains how to log them', async ({ page, seed }) => {
  await page.goto(`/runs/${seed.runs['spiky-run']}?tab=system`);
  await expect(page.getByText('No system metrics logged')).toBeVisible();
  await expect(page.getByText('log_system_metrics=True')).toBeVisible();
  await expect(page.getByText('runlens-agent run')).toBeVisible();
});

test('a running run refreshes, and the node filter shows one node', async ({ page, request }) => {
  test.setTimeout(60_000);
  const { experiment_id } = await mlflow(request, 'experiments/create', { name: `/Users/alice/e2e-live-${Date.now()}` });
  const { run } = await mlflow(request, 'runs/create', { experiment_id, run_name: 'live-run', start_time: Date.now() });
  const runId = run.info.run_id;
  const log = (keys) => mlflow(request, 'runs/log-batch', {
    run_id: runId,
    metrics: keys.map((key, i) => ({ key, value: 10 + i, timestamp: Date.now(), step: 0 })),
  });
  await log(['system/n1/cpu_utilization_percentage']);
  await page.goto(`/runs/${runId}?tab=system`);
  await expect(chart(page, 'system/n1/cpu_utilization_percentage')).toHaveAttribute('data-status', 'drawn');
  await expect(page.getByText('refresh every 10 s')).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Node' })).toHaveCount(0);

  // Another node starts logging; the tab picks it up within one refresh.
  await log(['system/n2/cpu_utilization_percentage', 'system/n2/gpu_0_utilization_percentage']);
  await expect(chart(page, 'system/n2/gpu_*_utilization_percentage')).toHaveAttribute('data-status', 'drawn', { timeout: 20_000 });
  await expect(section(page, 'GPUs · n2')).toBeVisible();
  await page.getByRole('combobox', { name: 'Node' }).selectOption('n2');
  await expect.poll(() => new URL(page.url()).searchParams.get('node')).toBe('n2');
  await expect(chart(page, 'system/n1/cpu_utilization_percentage')).toHaveCount(0);
  await expect(chart(page, 'system/n2/cpu_utilization_percentage')).toHaveAttribute('data-status', 'drawn');
});
