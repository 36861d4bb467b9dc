/**
 * @edge/auth: authenticators and API sessions behind the AuthService gRPC contract.
 */
export { createAuthService } from './service.js';
export { planPasswordImport, type PasswordImport, type BulkPassword } from './bulk.js';
