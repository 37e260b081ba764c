// Entry of a page-reading worker thread (piscina loads it; see page-pool.ts).
import { readPageSafely, type PageTask } from './read-page.js';

export default (task: PageTask) => readPageSafely(task);
