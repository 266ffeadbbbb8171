export {
  balance, charge, chargeMany, chargeNow, creditStatus, grantCredits, grantIncludedCredits, isPaused, CreditError,
  type ChargeInput, type ChargeItem, type ChargeOptions, type ChargeResult, type CreditStatus, type TxClient,
} from './ledger';
