export * from './keys.js';
export * from './authenticate.js';
export * from './api-key-header.js';
export { AuthCache } from './auth-cache.js';
export * from './plans.js';
export * from './seed.js';
export { accountUsage, creditsAvailable } from './usage.js';
export { accountCharges, accountDays } from './record.js';
export { dayTallyOf, flushDayTally, type DayOutcome } from './usage-days.js';
