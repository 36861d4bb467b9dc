export { createIdentityService } from './service.js';
