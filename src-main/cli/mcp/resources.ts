// What an agent may read without a tool call: a run's log as a resource, and the short
// guide as a prompt.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { GUIDE } from './guide';
import { readLogLines } from './log-lines';
import type { McpSession } from './session';

const LOG_LINES = 500;

export function registerResources(server: McpServer, session: McpSession): void {
  server.registerResource(
    'run-log',
    new ResourceTemplate('tender://runs/{run_id}/log', {
      list: () => ({
        resources: session.startedRuns().map((id) => ({
          uri: `tender://runs/${id}/log`,
          name: `${id} log`,
          mimeType: 'text/plain',
        })),
      }),
    }),
    {
      title: "A run's log",
      description: `The last ${LOG_LINES} lines of the job's output on the run's first node`,
      mimeType: 'text/plain',
    },
    async (uri, { run_id }) => {
      const runId = String(run_id);
      const view = await session.call('run.get', { runId });
      const log = await readLogLines(session, view, { channel: 'agent', tail: LOG_LINES });
      const redact = session.core.redactor();
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: 'text/plain',
            text: redact(log.lines.map((l) => l.text).join('\n')),
          },
        ],
      };
    },
  );

  server.registerPrompt(
    'tender_howto',
    { title: 'How to use Tender', description: 'The loop, the guard rails and good habits' },
    () => ({ messages: [{ role: 'user', content: { type: 'text', text: GUIDE } }] }),
  );
}
