export {
  balance, charge, chargeMany, chargeWhileCovered, chargeWhileCoveredNow, consumerNames, planOf, chargeNow, creditStatus, grantCredits, grantIncludedCredits, isPaused, setPlan, upsertPlan, usageByConsumer, workspaceStanding, grantWelcomeCredits, WELCOME_CREDITS, CreditError,
  type ChargeInput, type ChargeItem, type ChargeUsage, type PlanSummary, type UsageLine, type WorkspaceStanding, type ChargeOptions, type ChargeResult, type CreditStatus, type TxClient,
} from './ledger';
export { createChargeBatcher, type ChargeBatcher } from './charge-batcher';
