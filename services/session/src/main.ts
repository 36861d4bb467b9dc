import { serviceMain } from '@edge/lifecycle';
import { createSessionService } from './service.js';

await serviceMain('session', createSessionService);
