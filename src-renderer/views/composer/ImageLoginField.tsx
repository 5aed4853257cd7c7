import { useUi } from '../../store/ui';
import { imageLoginProblem, registryLine, type ImageLoginDraft } from './image-login';

/** A private image's registry login: the user, and the password typed (sent with the start,
 *  kept nowhere) or read where Tender runs from a named variable. */
export function ImageLoginField(): React.JSX.Element {
  const image = useUi((s) => s.draft.image);
  const login = useUi((s) => s.draft.imageLogin);
  const patch = useUi((s) => s.patchDraft);
  const set = (next: Partial<ImageLoginDraft>) => patch({ imageLogin: { ...login, ...next } });
  const problem = imageLoginProblem(image, login);
  return (
    <div className="field" data-testid="image-login">
      <div className="label">Registry login (a private image)</div>
      <div className="shape-grid">
        <input
          className="input mono"
          aria-label="Registry username"
          placeholder="username, e.g. lab-bot"
          autoComplete="off"
          value={login.username}
          onChange={(e) => set({ username: e.target.value })}
        />
        <input
          className="input mono"
          aria-label="Registry password"
          type="password"
          autoComplete="off"
          placeholder="password or token"
          disabled={login.passwordEnv.trim() !== ''}
          value={login.password}
          onChange={(e) => set({ password: e.target.value })}
        />
        <input
          className="input mono"
          aria-label="Variable holding the registry password"
          placeholder="or from $VARIABLE, e.g. GHCR_TOKEN"
          value={login.passwordEnv}
          onChange={(e) => set({ passwordEnv: e.target.value, password: '' })}
        />
        <input
          className="input mono"
          aria-label="Registry server"
          placeholder="server (default: the image's)"
          value={login.server}
          onChange={(e) => set({ server: e.target.value })}
        />
      </div>
      <span className="hint">
        {registryLine(image, login.server)} The password is sent to the marketplace with the rental
        only: never stored, logged or shown.
      </span>
      {problem && <span className="field-error">{problem}</span>}
    </div>
  );
}
