// meta.sections for collectors made up by tests: every section in one state.
import { SECTION_NAMES, type SectionState, type Sections } from '../../src/contract/sections.js';

export const everySection = (state: SectionState): Sections =>
  Object.fromEntries(SECTION_NAMES.map((n) => [n, state])) as Sections;
