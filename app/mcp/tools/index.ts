import type { AnyAirlockTool } from '../tool';
import { captureTool } from './capture';
import { listRecordsTool } from './list-records';
import { readTextTool } from './read-text';
import { requestRawTool } from './request-raw';
import { requestStatusTool } from './request-status';
import { screenTool } from './screen';
import { waitTool } from './wait';

/**
 * Every tool `airlock mcp` serves, in the order tools/list shows them. A new tool is one module
 * exporting a defineTool(...) value plus its entry here. The request tools queue and follow; none approves.
 */
export const TOOLS: readonly AnyAirlockTool[] = [captureTool, waitTool, readTextTool, listRecordsTool, screenTool, requestRawTool, requestStatusTool] as unknown as readonly AnyAirlockTool[];
