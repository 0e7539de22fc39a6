// Experiment page: the runs table, MLflow filter grammar, errors, filter kept in the URL.
import { test, expect, openExperiment } from './fixtures.mjs';

test('runs table filters with MLflow grammar', async ({ page }) => {
  await openExperiment(page);
  for (const name of ['baseline', 'adam-0.001', 'spiky-run', 'sweep']) {
    await expect(page.getByRole('link', { name, exact: true })).toBeVisible();
  }

  const filter = page.getByRole('combobox', { name: 'Filter runs' });
  await filter.fill("params.lr = '0.01'");
  await filter.press('Enter');
  await expect(page.getByRole('link', { name: 'spiky-run', exact: true })).toBeVisible();
  for (const name of ['baseline', 'adam-0.001', 'sweep-lr-0.1']) {
    await expect(page.getByRole('link', { name, exact: true })).toHaveCount(0);
  }

  // The filter lives in the URL: a reload shows the same filtered table.
  expect(decodeURIComponent(page.url().replace(/\+/g, ' '))).toContain("params.lr = '0.01'");
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Filter runs' })).toHaveValue("params.lr = '0.01'");
  await expect(page.getByRole('link', { name: 'spiky-run', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'baseline', exact: true })).toHaveCount(0);
});

test('the filter box completes keys, operators (IN for run ids) and AND from the keyboard', async ({ page, seed }) => {
  await page.goto(`/experiments/${seed.experiment_id}`);
  const filter = page.getByRole('combobox', { name: 'Filter runs' });
  const options = page.getByRole('listbox', { name: 'Completions' }).getByRole('option');
  // A key matched on its name alone; Tab takes the first completion.
  await filter.pressSequentially('lr');
  await expect(options).toHaveText(['params.lr']);
  await expect(filter).toHaveAttribute('aria-expanded', 'true');
  await filter.press('Tab');
  await expect(filter).toHaveValue('params.lr ');
  // A param's operators; ArrowDown + Enter picks one without applying the filter.
  await expect(options).toHaveText(['=', '!=', 'LIKE', 'ILIKE']);
  await filter.press('ArrowDown');
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await filter.press('Enter');
  await expect(filter).toHaveValue('params.lr = ');
  expect(new URL(page.url()).searchParams.get('filter')).toBeNull();
  await filter.pressSequentially("'0.01' ");
  await expect(options).toHaveText(['AND']);
  // Escape closes the list; Enter then applies the filter.
  await filter.press('Escape');
  await expect(options).toHaveCount(0);
  await filter.press('Enter');
  await expect.poll(() => new URL(page.url()).searchParams.get('filter')).toBe("params.lr = '0.01'");
  await expect(page.getByRole('link', { name: 'spiky-run', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'baseline', exact: true })).toHaveCount(0);
  // IN where MLflow's grammar has it: run ids.
  await filter.fill('');
  await filter.pressSequentially('attributes.run_id ');
  await expect(options.filter({ hasText: /^IN$/ })).toHaveCount(1);
  await expect(options.filter({ hasText: /^NOT IN$/ })).toHaveCount(1);
  await filter.fill('');
  await filter.pressSequentially('params.lr ');
  await expect(options.filter({ hasText: /^IN$/ })).toHaveCount(0);
});

test("an invalid filter shows the server's message about it at the filter box", async ({ allowConsole, page, seed }) => {
  allowConsole(/status of 400 \(Bad Request\) \(http[^)]*\/api\/v1\/experiments\/\d+\/runs\?filter=/);
  const bad = 'params.lr = = nonsense';
  // What the server says about this filter (the app must show this, not a generic error).
  const api = await page.request.get(`/api/v1/experiments/${seed.experiment_id}/runs`, { params: { filter: bad } });
  expect(api.status(), await api.text()).toBe(400);
  const { message } = await api.json();
  expect(message.length).toBeGreaterThan(5);

  await openExperiment(page);
  const filter = page.getByRole('combobox', { name: 'Filter runs' });
  await filter.fill(bad);
  await filter.press('Enter');
  // The alert belongs to the filter box (its container), and carries the server's words.
  const filterAlert = filter.locator('xpath=..').getByRole('alert');
  await expect(filterAlert).toBeVisible();
  await expect(filterAlert).toContainText('Invalid filter');
  await expect(filterAlert).toContainText(message);
  // Not the generic error view: the table says to fix the filter.
  await expect(page.getByText('Could not load runs')).toHaveCount(0);
  await expect(page.getByText('Fix the filter above to see runs', { exact: false })).toBeVisible();
  await expect(page.getByRole('link', { name: 'baseline', exact: true })).toHaveCount(0);

  // Fixing the filter clears the message.
  await filter.fill("params.lr = '0.1'");
  await filter.press('Enter');
  await expect(page.getByRole('link', { name: 'baseline', exact: true })).toBeVisible();
  await expect(filterAlert).toHaveCount(0);
});

test('the sort is kept in the URL: a link orders the runs table', async ({ page, seed }) => {
  // Seeded start times order the top-level runs baseline < adam-0.001 < sweep < spiky-run,
  // so name order differs from both time orders (the default is start time, newest first).
  const names = async () => page.locator('tbody tr.run-row:not(.child) a.run-link').allInnerTexts();
  const byName = ['adam-0.001', 'baseline', 'spiky-run', 'sweep'];
  for (const [dir, want] of [['ASC', byName], ['DESC', [...byName].reverse()]]) {
    await page.goto(`/experiments/${seed.experiment_id}?sort=${encodeURIComponent(`attributes.run_name ${dir}`)}`);
    await expect(page.getByRole('link', { name: 'spiky-run', exact: true })).toBeVisible();
    await expect(page.getByRole('columnheader', { name: /^Run/ })).toHaveAttribute('aria-sort', dir === 'ASC' ? 'ascending' : 'descending');
    await expect(page.getByRole('columnheader', { name: /^Started/ })).toHaveAttribute('aria-sort', 'none');
    await expect.poll(names).toEqual(want);
  }
  // Without a sort the newest run comes first; a click on "Run" writes the sort into the URL.
  await page.goto(`/experiments/${seed.experiment_id}`);
  await expect.poll(names).toEqual(['spiky-run', 'sweep', 'adam-0.001', 'baseline']);
  await page.getByRole('columnheader', { name: /^Run/ }).getByRole('button').click();
  await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('attributes.run_name ASC');
  await expect.poll(names).toEqual(byName);
});
