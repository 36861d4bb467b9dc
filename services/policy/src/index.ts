export { createPolicyService } from './service.js';
