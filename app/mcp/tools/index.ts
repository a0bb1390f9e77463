import type { AnyAirlockTool } from '../tool';
import { captureTool } from './capture';
import { listRecordsTool } from './list-records';
import { readTextTool } from './read-text';
import { screenTool } from './screen';

/**
 * Every tool `airlock mcp` serves, in the order tools/list shows them. A new tool is one module
 * exporting a defineTool(...) value plus its entry here (raw-access requests come this way).
 */
export const TOOLS: readonly AnyAirlockTool[] = [captureTool, readTextTool, listRecordsTool, screenTool] as unknown as readonly AnyAirlockTool[];
