// The platform's error answers (`{ error: { type, message } }`, research: fallback-platform.md §2) as spec codes.
// The type decides where the status code alone would mislead: a 402 can be a passing capacity limit
// or an exhausted account, a 403 an exhausted account or an actor an operator must approve.
import { LookupError, type ErrorCode } from '../../contract/index.js';

export interface PlatformFailure {
  status: number;
  /** The platform's error type, e.g. `memory-limit-exceeded`; empty when the body was not the envelope. */
  type: string;
  message: string;
  /** Where an operator approves an actor that needs full permissions (`full-permission-actor-not-approved`). */
  approvalUrl?: string;
}

const INPUT_ERRORS = new Set([
  'invalid-input',
  'invalid-input-schema',
  'input-json-not-object',
  'input-json-invalid-characters',
  'input-json-too-long',
  'run-input-body-not-valid-json',
  'schema-validation',
  'schema-validation-error',
  'schema-validation-failed',
]);
// The account's concurrent runs or combined memory are in use: transient, a run can start once others end.
const CAPACITY_ERRORS = new Set([
  'memory-limit-exceeded',
  'cannot-start-actor-runs',
  'concurrent-runs-limit-exceeded',
  'actor-memory-limit-exceeded',
]);
const QUOTA_ERRORS = new Set([
  'not-enough-usage-to-run-paid-actor',
  'platform-feature-disabled',
  'limit-reached',
  'apify-plan-required-to-use-paid-actor',
  'actor-is-not-rented',
  'user-has-no-subscription',
]);
const OPERATOR_ERRORS = new Set([
  'full-permission-actor-not-approved',
  'max-total-charge-usd-below-minimum',
  'max-total-charge-usd-must-be-greater-than-zero',
  'page-not-found',
]);

export const BELOW_MINIMUM_CAP = 'max-total-charge-usd-below-minimum';
const RATE_LIMITED = 'rate-limit-exceeded';

/** Refusals only an operator can end (token, account, actor, approval): logged for them, since clients only see a 503. */
export const needsOperator = (f: PlatformFailure): boolean =>
  [401, 402, 403, 404].includes(f.status) && !CAPACITY_ERRORS.has(f.type);

/** Whether a request refused this way may simply be sent again after a pause (no run was started). */
export const isRateLimit = (f: PlatformFailure): boolean => f.status === 429 || f.type === RATE_LIMITED;

/** Reads the error envelope; a body that is not one still has its status to go by. */
export function readFailure(status: number, body: string): PlatformFailure {
  try {
    const e = (JSON.parse(body) as { error?: { type?: unknown; message?: unknown; data?: { approvalUrl?: unknown } } })
      .error;
    const approvalUrl = e?.data?.approvalUrl;
    return {
      status,
      type: typeof e?.type === 'string' ? e.type : '',
      message: typeof e?.message === 'string' ? e.message : '',
      ...(typeof approvalUrl === 'string' ? { approvalUrl } : {}),
    };
  } catch {
    return { status, type: '', message: '' };
  }
}

/** The platform's refusal as an error's cause: the operator's log line names it (type, message, approval link); clients never see it. */
export class PlatformRefusal extends Error {
  readonly status: number;
  readonly type: string;
  readonly approvalUrl?: string;
  constructor(f: PlatformFailure) {
    super(`the actor platform refused a request: ${f.type || f.status} ${f.message}`.trim());
    this.name = 'PlatformRefusal';
    this.status = f.status;
    this.type = f.type;
    if (f.approvalUrl !== undefined) this.approvalUrl = f.approvalUrl;
  }
}

/**
 * A platform refusal as a spec code. `about` says what was asked: a 404 about the actor means the
 * configured actor does not exist; about a run it means the run is gone.
 */
export function platformError(f: PlatformFailure, about: 'actor' | 'run'): LookupError {
  const details = { status: f.status, ...(f.type ? { provider_error: f.type } : {}) };
  const make = (code: ErrorCode, more: Record<string, unknown> = {}) =>
    new LookupError(code, { details: { ...details, ...more }, cause: new PlatformRefusal(f) });
  if (INPUT_ERRORS.has(f.type)) return make('unprocessable_input');
  if (CAPACITY_ERRORS.has(f.type) || isRateLimit(f)) return make('upstream_busy');
  if (QUOTA_ERRORS.has(f.type)) return make('upstream_quota');
  if (OPERATOR_ERRORS.has(f.type)) return make('upstream_misconfigured');
  if (f.type === 'run-timeout-exceeded' || f.status === 408) return make('upstream_timeout', { reason: 'run_timeout' });
  if (f.status === 402) return make('upstream_quota');
  if (f.status === 401 || f.status === 403) return make('upstream_auth');
  if (f.status === 404)
    return about === 'actor'
      ? make('upstream_actor_missing')
      : make('upstream_run_failed', { reason: 'run_not_found' });
  return make('upstream_error');
}
