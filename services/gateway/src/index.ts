export { createGateway, type Gateway, type GatewayDeps } from './gateway.js';
export { versionData, CLIENT_BASE, MANAGEMENT_BASE } from './routes/root.js';
