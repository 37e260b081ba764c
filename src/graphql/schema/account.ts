// The caller's plan and usage: Query.account, the GraphQL face of GET /v1/account.
import { AccountUsage, type AccountUsage as AccountUsageShape } from '../../contract/index.js';
import { accountUsage } from '../../accounts/index.js';
import { builder } from '../builder.js';
import { implementFromContract, requireLookup, rethrowCoded } from './shared.js';

export const AccountUsageType = builder.objectRef<AccountUsageShape>('AccountUsage');

implementFromContract(AccountUsageType, AccountUsage, {
  description: "The caller's plan and usage (REST: data of GET /v1/account).",
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
