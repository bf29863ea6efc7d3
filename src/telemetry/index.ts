// Public surface of telemetry for the composition root: logger, metrics and the HTTP control server.
// Invariant: re-exports only; telemetry depends on core alone.

export { componentLogger, createLogger, strategyLogger } from './logger.js';
export { createMetrics, type PerpbotMetrics } from './metrics.js';
export { DEFAULT_CONTROL_PORT, startControlServer, type ControlServer, type ControlServerOptions } from './server.js';
