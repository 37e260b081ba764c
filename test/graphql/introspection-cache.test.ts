// Introspection answered from a cache (issue 9, item 5): the schema cannot change while the process
// runs, so a repeated introspection document is executed once.
import { getIntrospectionQuery } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/index.js';
import { useIntrospectionLimits } from '../../src/graphql/plugins/use-introspection-limits.js';

/** Counts the executions that reach the executor (a cached answer stops before it). */
function countingExecutions(): { plugin: Plugin; count: () => number } {
  let n = 0;
  return { plugin: { onExecute: () => ({ onExecuteDone: () => void (n += 1) }) }, count: () => n };
}

describe('introspection cache', () => {
  it('executes a repeated introspection document once, with the same answer', async () => {
    const counter = countingExecutions();
    const yoga = createYoga({ schema, plugins: [useIntrospectionLimits(), counter.plugin], logging: false });
    const ask = async (query: string) => {
      const res = await yoga.fetch('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return res.text();
    };
    const first = await ask(getIntrospectionQuery());
    const second = await ask(getIntrospectionQuery());
    expect(second).toBe(first);
    expect(JSON.parse(first).data.__schema.queryType.name).toBe('Query');
    expect(counter.count()).toBe(1);
    // Another document is another execution.
    await ask('{ __schema { queryType { name } } }');
    expect(counter.count()).toBe(2);
  });
});
