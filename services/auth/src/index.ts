/**
 * @edge/auth: authenticators and API sessions behind the AuthService gRPC contract.
 */
export { createAuthService } from './service.js';
