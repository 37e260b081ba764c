// The schema: every type file, then toSchema (sorted, so the printed SDL is stable).
import { specifiedDirectives } from 'graphql';
import { builder } from '../builder.js';
import './scalars.js';
import './errors.js';
import './property.js';
import './history.js';
import './batch.js';
import './account.js';
import './jobs.js';
import './watches.js';
import './webhooks.js';
import './status.js';
import { DeferDirective, StreamDirective } from './directives.js';

export const schema = builder.toSchema({ directives: [...specifiedDirectives, DeferDirective, StreamDirective] });
