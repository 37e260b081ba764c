// The caller's plan and usage: Query.account, the GraphQL face of GET /v1/account; and its own record
// (docs/accounts.md): account.usage(from, to), its lookups by UTC day (REST: GET /v1/account/usage), and
// account.charges(first, after), its charges newest first (REST: GET /v1/account/charges). Free: no
// credit, no lookup.
import { AccountUsage, type AccountUsage as AccountUsageShape } from '../../contract/index.js';
import {
  ChargeLine,
  chargesCursorId,
  chargesLimit,
  DEFAULT_CHARGES_PAGE,
  MAX_CHARGES_PAGE,
  MAX_USAGE_DAYS,
  UsageDay,
  usageDays,
  type ChargeLine as ChargeLineShape,
  type UsageDay as UsageDayShape,
} from '../../contract/account-record.js';
import { accountCharges, accountDays, accountUsage } from '../../accounts/index.js';
import { builder } from '../builder.js';
import { implementFromContract, requireLookup, rethrowCoded } from './shared.js';

export const AccountUsageType = builder.objectRef<AccountUsageShape>('AccountUsage');

implementFromContract(AccountUsageType, AccountUsage, {
  description: "The caller's plan and usage (REST: data of GET /v1/account).",
});

const UsageDayType = builder.objectRef<UsageDayShape>('UsageDay');
implementFromContract(UsageDayType, UsageDay);

const ChargeLineType = builder.objectRef<ChargeLineShape>('ChargeLine');
implementFromContract(ChargeLineType, ChargeLine);

interface UsageDays {
  from: string;
  to: string;
  days: UsageDayShape[];
}
const UsageDaysType = builder.objectRef<UsageDays>('AccountUsageDays');
UsageDaysType.implement({
  description: "The account's lookups by UTC day (REST: data of GET /v1/account/usage).",
  fields: (t) => ({
    from: t.exposeString('from', { description: 'The first day, UTC (YYYY-MM-DD)' }),
    to: t.exposeString('to', { description: 'The last day, UTC (YYYY-MM-DD), included' }),
    days: t.field({
      type: [UsageDayType],
      description: 'Every day of the range, oldest first (days without lookups too)',
      resolve: (u) => u.days,
    }),
  }),
});

interface ChargePage {
  charges: ChargeLineShape[];
  endCursor: string | null;
}
const ChargePageType = builder.objectRef<ChargePage>('AccountChargePage');
ChargePageType.implement({
  description: "A page of the account's charges, newest first (REST: GET /v1/account/charges).",
  fields: (t) => ({
    charges: t.field({
      type: [ChargeLineType],
      description: 'One line per credit charged, newest first',
      resolve: (p) => p.charges,
    }),
    endCursor: t.string({
      nullable: true,
      description: 'Pass as `after` for the next (older) page; null: no more',
      resolve: (p) => p.endCursor,
    }),
    hasNextPage: t.boolean({
      description: 'True when there are older charges (after endCursor)',
      resolve: (p) => p.endCursor !== null,
    }),
  }),
});

builder.queryField('account', (t) =>
  t.field({
    type: AccountUsageType,
    description: "The caller's plan and usage (REST: GET /v1/account). Free: no lookup is made.",
    resolve: async (_root, _args, ctx) => {
      const { deps, account } = requireLookup(ctx);
      try {
        return await accountUsage(deps.store, account, deps.clock());
      } catch (e) {
        rethrowCoded(e, { http: 'response' });
      }
    },
  }),
);

builder.objectFields(AccountUsageType, (t) => ({
  usage: t.field({
    type: UsageDaysType,
    description: `The account's lookups by UTC day, from \`from\` to \`to\` (both included; by default the current month up to today; at most ${MAX_USAGE_DAYS} days) (REST: GET /v1/account/usage). Free.`,
    args: {
      from: t.arg.string({ description: 'First day, YYYY-MM-DD (UTC); default the first of the month of `to`' }),
      to: t.arg.string({ description: 'Last day, YYYY-MM-DD (UTC), included; default today' }),
    },
    resolve: async (_usage, args, ctx) => {
      const { deps, account } = requireLookup(ctx);
      try {
        const days = usageDays(args.from, args.to, deps.clock());
        return {
          from: days[0]!,
          to: days[days.length - 1]!,
          days: await accountDays(deps.store, deps.logger, account, days),
        };
      } catch (e) {
        rethrowCoded(e);
      }
    },
  }),
  charges: t.field({
    type: ChargePageType,
    description: `The account's charges, newest first, one per credit: their count is \`used\` (REST: GET /v1/account/charges). Free.`,
    args: {
      first: t.arg.int({
        required: true,
        defaultValue: DEFAULT_CHARGES_PAGE,
        description: `Charges per page, 1 to ${MAX_CHARGES_PAGE}`,
      }),
      after: t.arg.string({ description: 'The endCursor of the page before' }),
    },
    resolve: async (_usage, args, ctx) => {
      const { deps, account } = requireLookup(ctx);
      try {
        const page = await accountCharges(
          deps.store,
          account,
          chargesLimit(args.first, 'first'),
          chargesCursorId(args.after, 'after'),
        );
        return { charges: page.lines, endCursor: page.nextCursor };
      } catch (e) {
        rethrowCoded(e);
      }
    },
  }),
}));
