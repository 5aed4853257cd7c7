import { useEffect, useState } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { editorUrl, sshCommand, type Editor, type NodeSshAccess } from '../../../src-main/contract';
import { describeError } from '../../api/backend';
import { toast } from '../../components/toasts';
import { copyText } from '../run/clipboard';
import { useSshInclude, useSshIncludeChange } from './ssh-include';
import './ssh.css';

const EDITOR_NAMES: Record<Editor, string> = { code: 'VS Code', cursor: 'Cursor' };

/** Your own tools on a node or a run (docs/own-tools.md): open its workspace in VS Code or
 *  Cursor over Remote-SSH, or copy `ssh <alias>`, through its entry in Tender's ssh config.
 *  Without one (Slurm, local, ended) the buttons are disabled and it says why. The first use
 *  before the user's ssh reads those entries offers to add the Include line. */
export function EditorButtons(props: {
  access: UseQueryResult<NodeSshAccess>;
  testId: string;
  className: string;
}): React.JSX.Element {
  const { access, testId, className } = props;
  const include = useSshInclude();
  const change = useSshIncludeChange();
  const [pending, setPending] = useState<(() => void) | null>(null);
  const [hasOffered, setOffered] = useState(false);
  const [copied, setCopied] = useState(false);
  const a = access.data;
  const why = access.isError ? describeError(access.error) : a && !a.hasEntry ? a.why : null;
  const isReady = a?.hasEntry === true;
  const isInstalled = include.data?.installed ?? a?.include.installed ?? true;
  // A run's alias names the node it reaches: `tender-r-1 (node-0)`.
  const host =
    a?.logicalId && !a.alias.endsWith(`-${a.logicalId}`) ? `${a.alias} (${a.logicalId})` : a?.alias;

  /** Runs `go` now, or first offers the Include (once) when the user's ssh lacks it. */
  const guarded = (go: () => void) => (e?: React.MouseEvent) => {
    if (isInstalled || hasOffered) return go();
    e?.preventDefault();
    setOffered(true);
    setPending(() => go);
  };

  const copy = guarded(() => {
    void copyText(sshCommand(a!.alias)).then((ok) => {
      if (!ok) return toast('Could not copy: select the command and copy it by hand', 'error');
      setCopied(true);
    });
  });
  // "Copied" for a moment after a copy.
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(t);
  }, [copied]);

  return (
    <div className={`editor-buttons ${className}`} data-testid={testId}>
      <span className="editor-buttons-label">Your tools</span>
      {(['code', 'cursor'] as const).map((editor) => {
        const url = isReady && a!.workdir ? editorUrl(editor, a!.alias, a!.workdir) : null;
        const title = !isReady
          ? (why ?? 'Reading the ssh entry…')
          : url
            ? `Opens ${a!.workdir} on ${host} in ${EDITOR_NAMES[editor]} (Remote-SSH)`
            : 'The node has not said where its workspace is yet';
        return url ? (
          <a
            key={editor}
            className="btn btn-sm"
            data-testid={`open-${editor}`}
            href={url}
            title={title}
            onClick={guarded(() => {
              window.location.href = url;
            })}
          >
            Open in {EDITOR_NAMES[editor]}
          </a>
        ) : (
          <button
            key={editor}
            className="btn btn-sm"
            data-testid={`open-${editor}`}
            disabled
            title={title}
          >
            Open in {EDITOR_NAMES[editor]}
          </button>
        );
      })}
      <button
        className="btn btn-sm"
        data-testid="copy-ssh"
        disabled={!isReady}
        title={isReady ? sshCommand(a!.alias) : (why ?? undefined)}
        onClick={(e) => copy(e)}
      >
        {copied ? 'Copied' : 'Copy ssh command'}
      </button>
      {isReady ? (
        <code className="editor-buttons-alias" data-testid="ssh-alias">
          {sshCommand(a!.alias)}
        </code>
      ) : (
        why && (
          <span className="editor-buttons-why" data-testid="editor-buttons-why" title={why}>
            {why}
          </span>
        )
      )}
      {pending && a && (
        <div className="editor-buttons-offer" role="dialog" data-testid="ssh-include-offer">
          Your ssh does not read Tender’s node entries yet. Install adds one line,{' '}
          <code>{a.include.line}</code>, at the top of <code>{a.include.userConfig}</code>{' '}
          (removable in Settings).
          <button
            className="btn btn-sm btn-primary"
            onClick={() => {
              const go = pending;
              setPending(null);
              change(true).then(go, (err) => toast(describeError(err), 'error'));
            }}
          >
            Install and continue
          </button>
          <button
            className="btn btn-sm"
            onClick={() => {
              const go = pending;
              setPending(null);
              go();
            }}
          >
            Continue without
          </button>
        </div>
      )}
    </div>
  );
}
