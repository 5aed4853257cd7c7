import { useUi } from '../../store/ui';
import type { DraftField } from './draft-to-run';
import { PortsField } from './PortsField';

/** What to do: the job's name, its setup and run commands, what comes back, and the ports
 *  opened to it. */
export function JobCard({
  problems,
}: {
  problems: Partial<Record<DraftField, string>>;
}): React.JSX.Element {
  const draft = useUi((s) => s.draft);
  const patch = useUi((s) => s.patchDraft);
  return (
    <section className="card composer-card">
      <div className="card-head">
        Job
        <span className="faint card-sub">run in the workspace, on every node</span>
      </div>
      <div className="card-body stack">
        <div className="field">
          <label htmlFor="job-name">Name</label>
          <input
            id="job-name"
            className={`input ${problems.name ? 'invalid' : ''}`}
            data-testid="job-name"
            placeholder="train-resnet"
            maxLength={200}
            value={draft.name}
            onChange={(e) => patch({ name: e.target.value })}
          />
          {problems.name && <div className="field-error">{problems.name}</div>}
        </div>
        <div className="field">
          <label htmlFor="job-setup">
            Setup <span className="faint">(optional: once per node, before run)</span>
          </label>
          <textarea
            id="job-setup"
            className="textarea"
            data-testid="job-setup"
            rows={2}
            spellCheck={false}
            placeholder="pip install -r requirements.txt"
            value={draft.setup}
            onChange={(e) => patch({ setup: e.target.value })}
          />
        </div>
        {draft.setup.trim() !== '' && (
          <div className="field">
            <label className="check">
              <input
                type="checkbox"
                data-testid="setup-cache"
                checked={draft.setupCache}
                onChange={(e) => patch({ setupCache: e.target.checked })}
              />{' '}
              Skip setup while its dependencies are unchanged
            </label>
            <span className="hint">
              Its environment, $TENDER_ENV, is kept on the node; untick to run setup every time.
            </span>
            {draft.setupCache && (
              <>
                <label htmlFor="job-setup-fingerprint">
                  Setup depends on{' '}
                  <span className="faint">
                    (optional, one workspace file per line; empty: requirements*.txt,
                    pyproject.toml, setup.py, setup.cfg, uv.lock, poetry.lock, Pipfile.lock,
                    environment.yml… found in the workspace, and the files setup names)
                  </span>
                </label>
                <textarea
                  id="job-setup-fingerprint"
                  className="textarea"
                  data-testid="job-setup-fingerprint"
                  rows={2}
                  spellCheck={false}
                  placeholder="requirements.txt"
                  value={draft.setupFingerprint}
                  onChange={(e) => patch({ setupFingerprint: e.target.value })}
                />
                <label className="check">
                  <input
                    type="checkbox"
                    data-testid="fresh-setup"
                    checked={draft.freshSetup}
                    onChange={(e) => patch({ freshSetup: e.target.checked })}
                  />{' '}
                  Rebuild the environment this time
                </label>
              </>
            )}
          </div>
        )}
        <div className="field">
          <label htmlFor="job-run">Run</label>
          <textarea
            id="job-run"
            className={`textarea ${problems.run ? 'invalid' : ''}`}
            data-testid="job-run"
            rows={3}
            spellCheck={false}
            placeholder="python train.py --epochs 10"
            value={draft.run}
            onChange={(e) => patch({ run: e.target.value })}
          />
          {problems.run ? (
            <div className="field-error">{problems.run}</div>
          ) : (
            <span className="hint">
              A shell script: its exit code decides whether the run completed or failed.
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor="job-outputs">Outputs to bring back (one path per line)</label>
          <textarea
            id="job-outputs"
            className="textarea"
            data-testid="job-outputs"
            rows={2}
            spellCheck={false}
            placeholder={'out/metrics.json\ncheckpoints/'}
            value={draft.outputs}
            onChange={(e) => patch({ outputs: e.target.value })}
          />
          <span className="hint">
            Relative to the workspace; a trailing / brings a whole folder. Anything the job writes
            to $TENDER_OUTPUT comes back too.
          </span>
        </div>
        <PortsField />
      </div>
    </section>
  );
}
