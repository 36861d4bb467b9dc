export { startStandalone, type RunningController } from './standalone.js';
export { startCluster, replicaTarget, type ClusterOptions } from './cluster.js';
