// A page worker that holds every read at a gate until the test opens it, so a test can see what
// happens while reads are in progress. It reads with the real readPage.
import { BroadcastChannel } from 'node:worker_threads';
import { readPageSafely, type PageTask } from '../../../src/collector/read-page.js';

export const GATE_CHANNEL = 'page-pool-test-gate';

const channel = new BroadcastChannel(GATE_CHANNEL);
channel.unref();
let open!: () => void;
const opened = new Promise<void>((resolve) => (open = resolve));
channel.onmessage = (m) => {
  if ((m as { data?: unknown }).data === 'open') open();
};

export default async (task: PageTask) => {
  channel.postMessage('started');
  await opened;
  return readPageSafely(task);
};
