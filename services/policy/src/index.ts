export { createPolicyService } from './service.js';
export { planPolicyImport, type PolicyImport, type BulkService, type BulkPolicy, type PolicyData } from './bulk.js';
