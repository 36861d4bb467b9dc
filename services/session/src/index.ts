export { createSessionService } from './service.js';
