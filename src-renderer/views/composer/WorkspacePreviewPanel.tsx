import { useQuery } from '@tanstack/react-query';
import type { WorkspacePreview } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { bytes } from '../../lib/format';
import { useUi } from '../../store/ui';
import { WarnIcon } from '../run/icons';
import { lines } from './draft-to-run';
import { useDebounced } from './use-debounced';

const REASON: Record<WorkspacePreview['excluded'][number]['reason'], string> = {
  git: 'git metadata',
  gitignore: '.gitignore',
  exclude: 'leave out',
  special: 'not a regular file',
};

/** "leave out: *.ckpt", ".gitignore: build/", "git metadata". */
function why(x: WorkspacePreview['excluded'][number]): string {
  return x.rule ? `${REASON[x.reason]}: ${x.rule}` : REASON[x.reason];
}

/** What a push would send: counts, the biggest files, what is left out and why, and any
 *  file that looks like a secret (which would be copied to a rented machine). */
export function WorkspacePreviewPanel(props: {
  workdir: string;
  exclude: string[];
}): React.JSX.Element {
  // Debounced as text: a new object every render would never settle.
  const key = useDebounced(
    JSON.stringify({ workdir: props.workdir.trim(), exclude: lines(props.exclude) }),
    350,
  );
  const args = JSON.parse(key) as { workdir: string; exclude: string[] };
  const patch = useUi((s) => s.patchDraft);
  const { data, error, isFetching } = useQuery({
    queryKey: ['workspace.preview', key],
    queryFn: () => call('workspace.preview', args),
    enabled: args.workdir.length > 0,
    retry: false,
    placeholderData: (prev) => prev,
  });

  if (error) return <div className="preview preview-error red">{describeError(error)}</div>;
  if (!data) return <div className="preview faint">Looking at the folder…</div>;
  const excludeSecrets = () =>
    patch({
      exclude: [
        ...lines(props.exclude),
        ...data.secrets.map((s) => `/${s.path}`).filter((p) => !props.exclude.includes(p)),
      ],
    });
  return (
    <div className={`preview ${isFetching ? 'stale' : ''}`} data-testid="workspace-preview">
      {data.secrets.length > 0 && (
        <div className="secrets-warning" role="alert" data-testid="secrets-warning">
          <WarnIcon size={18} />
          <div className="grow">
            <strong>
              {data.secrets.length === 1
                ? 'A file that looks like a secret'
                : `${data.secrets.length} files that look like secrets`}{' '}
              would be copied to every node
            </strong>
            <ul>
              {data.secrets.map((s) => (
                <li key={s.path}>
                  <span className="mono">{s.path}</span>{' '}
                  <span className="faint">matches {s.pattern}</span>
                </li>
              ))}
            </ul>
            <span className="dim">
              Leave them out and pass what the job needs as secret environment variables below.
            </span>
          </div>
          <button className="btn btn-sm" onClick={excludeSecrets}>
            Leave {data.secrets.length === 1 ? 'it' : 'them'} out
          </button>
        </div>
      )}
      <div className="preview-stats">
        <div>
          <span className="big tabular">{data.files.toLocaleString('en-US')}</span> file
          {data.files === 1 ? '' : 's'}
        </div>
        <div>
          <span className="big tabular">{bytes(data.bytes)}</span> to push
        </div>
        <div>
          <span className="big tabular">{data.excluded.length.toLocaleString('en-US')}</span> left
          out
        </div>
        <span className="mono faint preview-root" title={data.root}>
          {data.root}
        </span>
      </div>
      <div className="preview-cols">
        <div>
          <div className="label">Largest files</div>
          {data.largest.length === 0 ? (
            <div className="faint">The folder is empty.</div>
          ) : (
            <table className="mini-table">
              <tbody>
                {data.largest.slice(0, 6).map((f) => (
                  <tr key={f.path}>
                    <td className="mono">{f.path}</td>
                    <td className="num faint">{bytes(f.size)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
        <div>
          <div className="label">Left out</div>
          {data.excluded.length === 0 ? (
            <div className="faint">Nothing: every file travels.</div>
          ) : (
            <table className="mini-table">
              <tbody>
                {data.excluded.slice(0, 6).map((x) => (
                  <tr key={x.path}>
                    <td className="mono">{x.path}</td>
                    <td className="faint" title={x.source}>
                      {why(x)}
                    </td>
                  </tr>
                ))}
                {data.excluded.length > 6 && (
                  <tr>
                    <td className="faint" colSpan={2}>
                      and {data.excluded.length - 6} more
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          )}
        </div>
      </div>
    </div>
  );
}
