import { serviceMain } from '@edge/lifecycle';
import { createPolicyService } from './service.js';

await serviceMain('policy', createPolicyService);
