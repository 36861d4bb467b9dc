export { createIdentityService } from './service.js';
export { IDENTITY_FIELDS, IDENTITY_TYPE_FIELDS } from './store.js';
