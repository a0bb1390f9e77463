import type { Command } from '../command';
import { inspectCommand } from './inspect';
import { sanitizeCommand } from './sanitize';

/** Every `airlock` subcommand, in the order `airlock --help` lists them. */
export const COMMANDS: readonly Command[] = [sanitizeCommand, inspectCommand];
