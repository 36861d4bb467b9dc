export { startStandalone, type RunningController } from './standalone.js';
export { startCluster, replicaTarget, type ClusterOptions } from './cluster.js';
export { importDataset, type Dataset, type ImportedIds } from './import.js';
