import { useState, type DragEvent } from 'react';
import { call, describeError } from '../../api/backend';
import { useSettings } from '../../api/queries';
import { toast } from '../../components/toasts';
import { useUi } from '../../store/ui';
import { FileIcon, FolderIcon } from '../run/icons';
import { isJobFile, pathFromDrop } from './dropped-path';
import { fillFromJobFile, useJobFileProbe } from './use-job-file';
import { WorkspacePreviewPanel } from './WorkspacePreviewPanel';

/**
 * The folder pushed to each node: dropped (a folder, or a tender.toml, which fills the whole
 * composer), typed, or picked (desktop app). Paths are on the machine running Tender.
 */
export function WorkspaceCard(): React.JSX.Element {
  const draft = useUi((s) => s.draft);
  const patch = useUi((s) => s.patchDraft);
  const { data: settings } = useSettings();
  const isDesktop = settings?.shell === 'app';
  const [isOver, setIsOver] = useState(false);
  const [typed, setTyped] = useState<string | null>(null);
  const probe = useJobFileProbe(draft.workdir);

  /** A path from a drop, the picker or the text box: a job file fills everything. */
  const takePath = async (path: string) => {
    const clean = path.trim().replace(/(.)\/+$/, '$1');
    if (!clean) return;
    if (isJobFile(clean)) await fillFromJobFile(clean);
    else patch({ workdir: clean });
    setTyped(null);
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setIsOver(false);
    const file = e.dataTransfer.files[0];
    const fromDesktop = file ? window.tenderDesktop?.pathForFile(file) : undefined;
    const path = fromDesktop || pathFromDrop(e.dataTransfer);
    if (path) void takePath(path);
    else
      toast(
        'This browser does not say where a dropped folder lives. Type or paste its path instead (on the machine running Tender).',
        'error',
      );
  };

  const browse = async () => {
    try {
      const { path } = await call('app.pickFolder', {});
      if (path) await takePath(path);
    } catch (err) {
      toast(describeError(err), 'error');
    }
  };

  const isFromFile = probe.kind === 'found' && draft.source === probe.file;
  return (
    <section className="card composer-card">
      <div className="card-head">
        Workspace
        <span className="faint card-sub">the folder every node gets a copy of</span>
      </div>
      <div className="card-body stack">
        <div
          className={`drop-zone ${isOver ? 'over' : ''} ${draft.workdir ? 'has-path' : ''}`}
          data-testid="workspace-drop"
          onDragOver={(e) => {
            e.preventDefault();
            e.dataTransfer.dropEffect = 'copy';
            setIsOver(true);
          }}
          onDragLeave={() => setIsOver(false)}
          onDrop={onDrop}
        >
          <FolderIcon size={22} />
          <div className="drop-text">
            <strong>Drop a project folder, a tender.toml, or a SkyPilot or dstack YAML here</strong>
            <span className="faint">
              {isDesktop
                ? 'or type its path, or browse.'
                : 'or type its path below. Web mode reads paths on the machine running Tender; a file manager’s drop carries the path, a browser’s file picker does not.'}
            </span>
          </div>
        </div>
        <div className="row">
          <input
            className="input mono"
            data-testid="workdir-input"
            aria-label="Workspace folder"
            placeholder="/home/you/project  or  /home/you/project/tender.toml"
            value={typed ?? draft.workdir}
            onChange={(e) => setTyped(e.target.value)}
            onBlur={() => typed !== null && void takePath(typed)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && typed !== null) void takePath(typed);
              if (e.key === 'Escape') setTyped(null);
            }}
          />
          {isDesktop && (
            <button className="btn" onClick={() => void browse()}>
              Browse…
            </button>
          )}
          {draft.workdir && (
            <button className="btn btn-ghost" onClick={() => patch({ workdir: '' })}>
              Clear
            </button>
          )}
        </div>
        {probe.kind === 'found' && !isFromFile && (
          <div className="toml-offer" data-testid="toml-offer">
            <FileIcon />
            <span className="grow">
              This folder has a <span className="mono">tender.toml</span> (job “{probe.jobName}”).
            </span>
            <button
              className="btn btn-sm btn-primary"
              data-testid="load-toml"
              onClick={() => void fillFromJobFile(probe.file)}
            >
              Fill the form from it
            </button>
          </div>
        )}
        {probe.kind === 'broken' && (
          <div className="alert warn small">
            The <span className="mono">tender.toml</span> in this folder cannot be used:{' '}
            {probe.message}
          </div>
        )}
        <div className="field">
          <label htmlFor="exclude">Leave out (gitignore patterns, one per line)</label>
          <textarea
            id="exclude"
            className="textarea"
            rows={2}
            placeholder={'/data\n*.ckpt'}
            value={draft.exclude.join('\n')}
            onChange={(e) => patch({ exclude: e.target.value.split('\n') })}
          />
          <span className="hint">.git and what .gitignore lists are left out already.</span>
        </div>
        {draft.workdir && <WorkspacePreviewPanel workdir={draft.workdir} exclude={draft.exclude} />}
      </div>
    </section>
  );
}
