// The Electron main process entry. Everything Electron-specific lives in ./app/; the rest
// of src-main is plain Node and also runs the CLI and web mode.
import './app/main';
