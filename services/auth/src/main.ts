/** Runs the auth service as its own process (distributed mode). */
import { serviceMain } from '@edge/lifecycle';
import { createAuthService } from './service.js';

await serviceMain('auth', createAuthService);
