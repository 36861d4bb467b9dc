export { startStandalone, type RunningController } from './standalone.js';
export { startCluster, replicaTarget, clusterPorts, metricsAddrs, type ClusterOptions } from './cluster.js';
export { importDataset, rowCount, type Dataset, type ImportedIds, type ImportOptions } from './import.js';
export { serving, answers } from './ready.js';
