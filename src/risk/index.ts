// The risk module's public surface: contract types, config schema, the gate and its kill-switch inputs.
// Invariant: re-exports only; importers outside src/risk use this file.

export type * from './types.js';
export {
  riskConfig,
  riskConfigInputSchema,
  riskConfigSchema,
  RISK_DEFAULTS,
  withRiskDefaults,
  type RateConfig,
  type RiskConfig,
  type RiskConfigInput,
} from './config.js';
export { createRiskGate, type RiskEngine, type RiskViewWithSymbols } from './engine.js';
export { countingGate, DenialCounter, type DenialCounterOptions, type DenialLogger, type StrategyDenials } from './denials.js';
export {
  cleanReason,
  killSwitchHandlers,
  MAX_REASON_LENGTH,
  onSignal,
  tradingState,
  watchKillFile,
  type Disposer,
  type KillSwitchHandlers,
} from './kill-switch.js';
