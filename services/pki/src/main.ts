/** Runs the pki service as its own process: `main.js` serves, `main.js migrate` only migrates. */
import { fileURLToPath } from 'node:url';
import { serviceMain } from '@edge/lifecycle';
import { createPkiService } from './service.js';

// src/ and dist/ both sit next to migrations/.
await serviceMain('pki', createPkiService, { migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)) });
