import { serviceMain } from '@edge/lifecycle';
import { createIdentityService } from './service.js';

await serviceMain('identity', createIdentityService);
