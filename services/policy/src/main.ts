/** Runs the policy service as its own process: `main.js` serves, `main.js migrate` only migrates. */
import { fileURLToPath } from 'node:url';
import { serviceMain } from '@edge/lifecycle';
import { createPolicyService } from './service.js';

// src/ and dist/ both sit next to migrations/.
await serviceMain('policy', createPolicyService, { migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)) });
