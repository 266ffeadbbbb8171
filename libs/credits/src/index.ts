export {
  balance, charge, chargeMany, chargeNow, creditStatus, grantCredits, isPaused, CreditError,
  type ChargeInput, type ChargeItem, type ChargeOptions, type ChargeResult, type CreditStatus, type TxClient,
} from './ledger';
