import { useMutation } from '@tanstack/react-query';
import type { OutputFile, RunView } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { useOutputs, useSettings } from '../../api/queries';
import { toast } from '../../components/toasts';
import { bytes, logicalOf } from '../../lib/format';
import { FileIcon, FolderIcon } from './icons';
import { isActive } from './RunHeader';

/** What came back from the nodes, per node, with the folder it is in on the machine
 *  running Tender (which is where "Open folder" opens it, in web mode too). */
export function OutputsCard({ run }: { run: RunView }): React.JSX.Element {
  const { data: files, isLoading, error } = useOutputs(run.id);
  const { data: settings } = useSettings();
  const open = useMutation({
    mutationFn: (nodeId: string) =>
      call('outputs.open', { runId: run.id, nodeName: logicalOf(nodeId) }),
    onSuccess: ({ path }) =>
      toast(
        settings?.shell === 'web'
          ? `Opened ${path} on the machine running Tender`
          : `Opened ${path}`,
      ),
    onError: (err) => toast(describeError(err), 'error'),
  });
  const byNode = new Map<string, OutputFile[]>();
  for (const f of files ?? []) byNode.set(f.nodeId, [...(byNode.get(f.nodeId) ?? []), f]);
  const total = (files ?? []).reduce((s, f) => s + f.size, 0);

  return (
    <section className="card outputs" data-testid="outputs">
      <div className="card-head">
        Outputs
        {files && files.length > 0 && (
          <span className="faint tabular">
            {files.length} file{files.length === 1 ? '' : 's'} · {bytes(total)}
          </span>
        )}
        <div className="grow" />
        <span className="mono faint outputs-dir" title="Where outputs land">
          {run.outputsDir}
        </span>
      </div>
      {error ? (
        <div className="card-body red">{describeError(error)}</div>
      ) : isLoading ? (
        <div className="card-body faint">Listing outputs…</div>
      ) : byNode.size === 0 ? (
        <div className="card-body dim">
          {isActive(run)
            ? 'Outputs are collected from each node when its job ends.'
            : 'This run brought no outputs back: its job file lists none, or the job did not write them.'}
        </div>
      ) : (
        <div className="outputs-nodes">
          {[...byNode].map(([nodeId, list]) => (
            <div className="outputs-node" key={nodeId}>
              <div className="outputs-node-head">
                <strong className="mono">{logicalOf(nodeId)}</strong>
                <span className="mono faint">{logicalOf(nodeId)}/outputs/</span>
                <div className="grow" />
                <button
                  className="btn btn-sm"
                  disabled={open.isPending}
                  title={
                    settings?.shell === 'web'
                      ? 'Opens the folder in the file manager of the machine running Tender'
                      : 'Open the folder in your file manager'
                  }
                  onClick={() => open.mutate(nodeId)}
                >
                  <FolderIcon /> Open folder
                </button>
              </div>
              <table className="table outputs-table">
                <tbody>
                  {list.map((f) => (
                    <tr key={f.path}>
                      <td className="mono">
                        <span className="output-path">
                          <FileIcon /> {f.path}
                        </span>
                      </td>
                      <td className="num faint">{bytes(f.size)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
