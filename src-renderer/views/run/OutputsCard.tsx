import { useMutation } from '@tanstack/react-query';
import type { RunView } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { useOutputs } from '../../api/queries';
import { toast } from '../../components/toasts';
import { bytes } from '../../lib/format';
import { DownloadIcon, FileIcon, FolderIcon } from './icons';
import { canDownloadOutputs, downloadOutput } from './output-download';
import { outputGroups, type OutputGroup } from './output-groups';
import { isActive } from './RunHeader';

/** What came back, per node — and per cell of a sweep — with the folder it is in on the
 *  machine running Tender. The desktop app opens that folder; in web mode the browser may be
 *  elsewhere, so each file downloads instead (and no folder opens on the serving machine). */
export function OutputsCard({ run }: { run: RunView }): React.JSX.Element {
  const { data: files, isLoading, error } = useOutputs(run.id);
  const isWeb = canDownloadOutputs();
  const open = useMutation({
    mutationFn: (g: OutputGroup) =>
      call('outputs.open', {
        runId: run.id,
        nodeName: g.nodeName,
        ...(g.cellId !== null ? { cellId: g.cellId } : {}),
      }),
    onSuccess: ({ path }) => toast(`Opened ${path}`),
    onError: (err) => toast(describeError(err), 'error'),
  });
  const download = useMutation({
    mutationFn: downloadOutput,
    onError: (err) => toast(describeError(err), 'error'),
  });
  const groups = outputGroups(files ?? []);
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
      ) : groups.length === 0 ? (
        <div className="card-body dim">
          {isActive(run)
            ? 'Outputs are collected from each node when its job ends.'
            : 'This run brought no outputs back: its job file lists none, or the job did not write them.'}
        </div>
      ) : (
        <div className="outputs-nodes">
          {groups.map((g) => (
            <div
              className="outputs-node"
              key={g.key}
              data-testid="outputs-group"
              data-cell-id={g.cellId ?? undefined}
              data-node-name={g.nodeName || undefined}
            >
              <div className="outputs-node-head">
                <strong className="mono">{g.cellId ?? g.nodeName}</strong>
                {g.cellId !== null && g.nodeName && <span className="dim">on {g.nodeName}</span>}
                <span className="mono faint">{g.folder}</span>
                <div className="grow" />
                {!isWeb && (
                  <button
                    className="btn btn-sm"
                    disabled={open.isPending}
                    title="Open the folder in your file manager"
                    onClick={() => open.mutate(g)}
                  >
                    <FolderIcon /> Open folder
                  </button>
                )}
              </div>
              <table className="table outputs-table">
                <tbody>
                  {g.files.map((f) => (
                    <tr key={f.path}>
                      <td className="mono">
                        {isWeb ? (
                          <a
                            href="#"
                            className="output-path output-download"
                            data-testid="output-download"
                            data-path={f.path}
                            title={`Download ${f.path}`}
                            onClick={(e) => {
                              e.preventDefault();
                              download.mutate({
                                runId: run.id,
                                nodeName: g.nodeName,
                                cellId: g.cellId,
                                path: f.path,
                              });
                            }}
                          >
                            <DownloadIcon /> {f.path}
                          </a>
                        ) : (
                          <span className="output-path">
                            <FileIcon /> {f.path}
                          </span>
                        )}
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
