export { runChaos, type ChaosOptions, type ChaosResult, type FaultResult } from './run.js';
export { FAULTS, parseFaults, type FaultName } from './faults.js';
export { table, details } from './report.js';
