/** Runs the pki service as its own process. */
import { serviceMain } from '@edge/lifecycle';
import { createPkiService } from './service.js';

await serviceMain('pki', createPkiService);
