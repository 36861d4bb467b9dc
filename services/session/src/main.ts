/** Runs the session service as its own process: `main.js` serves, `main.js migrate` only migrates. */
import { fileURLToPath } from 'node:url';
import { serviceMain } from '@edge/lifecycle';
import { createSessionService } from './service.js';

// src/ and dist/ both sit next to migrations/.
await serviceMain('session', createSessionService, { migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)) });
