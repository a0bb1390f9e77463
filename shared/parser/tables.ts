// TEMPORARY: computed from the definitions; replaced by generated data.
import { AGREE, agrees, EFFECTIVE_STATES, ESC_IN_DCS, HOME, MOVE, NEXT, ownStep, PRINT, Reading, READING_COUNT, READING_TABLES, STABLE, STRING_STOPS, TMUX_GROUND, tmuxCharLength } from './readings';
import { TRANSITIONS } from './transition-table';
import { Unit } from './states';

export { AGREE, ESC_IN_DCS, HOME, MOVE, NEXT, PRINT, Reading, READING_COUNT, READING_TABLES, STABLE, STRING_STOPS, TMUX_GROUND, tmuxCharLength, TRANSITIONS };

export const OWN = new Uint8Array(EFFECTIVE_STATES << 8);
for (let s = 0; s < EFFECTIVE_STATES; s++) for (let c = 0; c < 256; c++) OWN[(s << 8) | c] = ownStep(s, c);
export const AGREE_STRAY = new Uint8Array(EFFECTIVE_STATES << 5);
for (let s = 0; s < EFFECTIVE_STATES; s++) for (let c = 0; c < 32; c++) AGREE_STRAY[(s << 5) | c] = agrees(s, 0x80 + c, Unit.Invalid) ? 1 : 0;
