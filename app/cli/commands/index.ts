import type { Command } from '../command';
import { auditCommand } from './audit';
import { captureCommand } from './capture';
import { inspectCommand } from './inspect';
import { sanitizeCommand } from './sanitize';
import { vaultCommand } from './vault';

/** Every `airlock` subcommand, in the order `airlock --help` lists them. */
export const COMMANDS: readonly Command[] = [sanitizeCommand, inspectCommand, captureCommand, vaultCommand, auditCommand];
