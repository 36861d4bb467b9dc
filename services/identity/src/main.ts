/** Runs the identity service as its own process: `main.js` serves, `main.js migrate` only migrates. */
import { fileURLToPath } from 'node:url';
import { serviceMain } from '@edge/lifecycle';
import { createIdentityService } from './service.js';

// src/ and dist/ both sit next to migrations/.
await serviceMain('identity', createIdentityService, { migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)) });
