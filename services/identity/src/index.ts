export { createIdentityService } from './service.js';
export { IDENTITY_FIELDS, IDENTITY_TYPE_FIELDS } from './store/identity.js';
export { planIdentityImport, type IdentityImport, type BulkIdentity, type BulkEdgeRouter } from './bulk.js';
