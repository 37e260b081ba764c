// The transport rows (issue 21): the live path through the own collector's client of the site (impit as
// Chrome, TLS + HTTP/2) against the client before it (got over Node's TLS, HTTP/1.1), in the same run,
// over loopback TLS to the fake edge, the real 1.06 MB page: CPU per live home, event-loop time per home,
// and the peak RSS with 50 homes in flight. Each client runs in a process of its own.
import { makeTestCa } from '../test/fakes/edge/test-ca.js';
import { firstMessage, spawnNode, benchFile, LOAD_CORE, SERVER_CORE, type Child } from './procs.js';

export interface TransportFigures {
  cpuUsPerHome: number;
  loopMsPerHome: number;
  peakRssMb: number;
  idleRssMb: number;
}

async function side(
  mode: 'impit' | 'got',
  site: string,
  first: number,
  env: Record<string, string>,
): Promise<TransportFigures> {
  const child: Child = spawnNode(benchFile('transport-client.ts'), {
    core: SERVER_CORE,
    ipc: true,
    env,
    args: [mode, site, String(first)],
  });
  const figures = await firstMessage<{ cpuUsPerHome: number; loopMsPerHome: number }>(child);
  const idleRssMb = child.rssMb();
  let peak = idleRssMb;
  const sampler = setInterval(() => (peak = Math.max(peak, child.rssMb())), 10);
  const done = new Promise((r) => child.proc.once('message', r));
  child.proc.send({ go: true });
  await done;
  clearInterval(sampler);
  await child.stop();
  return { ...figures, peakRssMb: peak, idleRssMb };
}

/** Both sides, alternating (impit, got, impit, got), each figure the median of its rounds. */
export async function transportRows(
  siteUrl: string,
  rounds: number,
): Promise<{ impit: TransportFigures; got: TransportFigures }> {
  const ca = await makeTestCa();
  const edgeEnv = { BENCH_TLS_CERT: ca.certFile, BENCH_TLS_KEY: ca.keyFile };
  const edge = spawnNode(benchFile('edge-site.ts'), { core: LOAD_CORE, ipc: true, env: edgeEnv, args: [siteUrl] });
  try {
    const { url } = await firstMessage<{ url: string }>(edge);
    const env = { SSL_CERT_FILE: ca.caFile, NODE_EXTRA_CA_CERTS: ca.caFile };
    const runs: Record<'impit' | 'got', TransportFigures[]> = { impit: [], got: [] };
    for (let r = 0; r < rounds; r++) {
      for (const mode of ['impit', 'got'] as const)
        runs[mode].push(await side(mode, url, 500_000 + (r * 2 + (mode === 'got' ? 1 : 0)) * 1_000, env));
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const pick = (xs: TransportFigures[]): TransportFigures => ({
      cpuUsPerHome: med(xs.map((x) => x.cpuUsPerHome)),
      loopMsPerHome: med(xs.map((x) => x.loopMsPerHome)),
      peakRssMb: med(xs.map((x) => x.peakRssMb)),
      idleRssMb: med(xs.map((x) => x.idleRssMb)),
    });
    return { impit: pick(runs.impit), got: pick(runs.got) };
  } finally {
    await edge.stop();
    ca.remove();
  }
}
