// Seeding for the artifact specs: runs seed_artifacts.py (the stock mlflow client, as alice)
// against the shared server, once per experiment name. See that script for what it logs.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runlensPaths } from '../server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/** alice's API token (global-setup.mjs made it). */
export const aliceToken = () => JSON.parse(process.env.RUNLENS_E2E_SECRET_TOKENS)[0];

/**
 * Logs the artifacts, logged model and registered model of seed_artifacts.py into a new
 * experiment `experiment` on the server at `baseURL`. Returns
 * `{ experiment_id, run_id, empty_run_id, model_id, model_name }`.
 */
export function seedArtifacts(baseURL, experiment, modelName, token = aliceToken()) {
  const out = execFileSync(runlensPaths().python, [path.join(here, '..', 'seed_artifacts.py'), experiment, modelName], {
    env: { ...process.env, MLFLOW_TRACKING_URI: baseURL, MLFLOW_TRACKING_TOKEN: token, MLFLOW_HTTP_REQUEST_MAX_RETRIES: '0' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out.trim().split('\n').pop());
}
